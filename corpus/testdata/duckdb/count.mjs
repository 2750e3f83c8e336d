// Reads a repoprep corpus table with DuckDB for make bench-corpus
// (corpus/bench_corpus_test.go) and prints one JSON document: every row,
// in file then row order, as [repo, path, bytes, strlen(content),
// md5(content), duplicate_of, near_duplicate_of], and the counts of rows,
// of duplicate_of IS NOT NULL and of near_duplicate_of IS NOT NULL. Lighter
// than read.mjs, which prints every field, the content too: a corpus of
// real repositories holds hundreds of MB of text.
// node count.mjs FILE...
import { DuckDBInstance } from '@duckdb/node-api';

const files = process.argv.slice(2);
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
const all = async (sql) => (await con.runAndReadAll(sql)).getRows();
const num = (v) => (v === null ? null : Number(v));

// The files in the order given, each row in its order in the file.
const src = `read_parquet([${files.map(lit).join(', ')}], filename = true, file_row_number = true)`;
const order = `list_position([${files.map(lit).join(', ')}], filename), file_row_number`;
const rows = (await all(
  `SELECT repo, path, bytes, strlen(content), md5(content), duplicate_of, near_duplicate_of FROM ${src} ORDER BY ${order}`,
)).map((r) => [r[0], r[1], num(r[2]), num(r[3]), r[4], r[5], r[6]]);
const [count, duplicates, near] = (await all(
  `SELECT count(*), count(*) FILTER (WHERE duplicate_of IS NOT NULL), count(*) FILTER (WHERE near_duplicate_of IS NOT NULL) FROM ${src}`,
))[0].map(num);
process.stdout.write(JSON.stringify({ rows, count, duplicates, near_duplicates: near }));
