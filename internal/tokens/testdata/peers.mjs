// The o200k_base counters on the npm registry, on the corpora of
// BenchmarkCorpus (bench_test.go): about 1 MB of Go source from GOROOT and
// Debian's Chinese documentation. make bench-tokens-peers installs them into
// a temporary directory, copies this file there and runs it with GOROOT as
// its argument; they are never a dependency of repoprep. Prints, per corpus
// and counter, the token count (which must equal tokens.Count's, printed by
// the Go benchmark beside it) and the median of 5 timed counts in MB per CPU
// second, after one untimed count that warms each counter's caches.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { get_encoding } from 'tiktoken';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';

// goSource is bench_test.go's goSource: *.go of three packages in name
// order, stopping once 1 MiB is reached.
function goSource(goroot) {
  let text = '';
  for (const dir of ['net/http', 'go/types', 'runtime']) {
    const d = join(goroot, 'src', dir);
    for (const name of readdirSync(d).filter(n => n.endsWith('.go')).sort()) {
      if (Buffer.byteLength(text) >= 1 << 20) return text;
      text += readFileSync(join(d, name), 'utf8');
    }
  }
  return text;
}

// chineseDocs is bench_test.go's chineseDocs, or null.
function chineseDocs() {
  const ref = '/usr/share/debian-reference/debian-reference.zh-cn.txt.gz';
  if (existsSync(ref)) return gunzipSync(readFileSync(ref)).toString('utf8');
  for (const vim of existsSync('/usr/share/vim') ? readdirSync('/usr/share/vim').sort() : []) {
    const tutor = join('/usr/share/vim', vim, 'tutor/tutor.zh_cn.utf-8');
    if (existsSync(tutor)) return readFileSync(tutor, 'utf8');
  }
  return null;
}

const tiktoken = get_encoding('o200k_base');
const jsTiktoken = new Tiktoken(o200k);
const counters = {
  'gpt-tokenizer': s => countTokens(s),
  'tiktoken (wasm)': s => tiktoken.encode_ordinary(s).length,
  'js-tiktoken': s => jsTiktoken.encode(s).length,
};

const corpora = [['go', goSource(process.argv[2])], ['zh', chineseDocs()]];
for (const [corpus, text] of corpora) {
  if (text === null) {
    console.log(`${corpus}: no corpus here, skipped`);
    continue;
  }
  const bytes = Buffer.byteLength(text);
  for (const [name, count] of Object.entries(counters)) {
    const tokens = count(text);
    const rates = [];
    for (let i = 0; i < 5; i++) {
      const t0 = process.cpuUsage();
      count(text);
      const used = process.cpuUsage(t0);
      rates.push(bytes / ((used.user + used.system) / 1e6) / 1e6);
    }
    rates.sort((a, b) => a - b);
    console.log(`${corpus}\t${name}\t${bytes} bytes\t${tokens} tokens\t${rates[2].toFixed(2)} cpu-MB/s`);
  }
}
