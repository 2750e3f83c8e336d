// Reads repoprep corpus Parquet files with DuckDB and prints, as one JSON
// document: every row of every file (in file order, then row order), each
// file's row-group count, created_by and key-value metadata, the column
// types, and SELECT count(*) ... WHERE duplicate_of IS NOT NULL over all
// files. Run by corpus/duckdb_test.go: node read.mjs FILE...
import { DuckDBInstance } from '@duckdb/node-api';

const files = process.argv.slice(2);
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
const all = async (sql) => (await con.runAndReadAll(sql)).getRows();

const out = { files: [] };
for (const f of files) {
  const rows = (await all(`SELECT to_json(t)::VARCHAR FROM read_parquet(${lit(f)}) t`)).map((r) => JSON.parse(r[0]));
  const createdBy = (await all(`SELECT created_by FROM parquet_file_metadata(${lit(f)})`)).map((r) => r[0]);
  const kv = (await all(`SELECT key::VARCHAR, value::VARCHAR FROM parquet_kv_metadata(${lit(f)})`)).map((r) => [r[0], r[1]]);
  const groups = Number((await all(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${lit(f)})`))[0][0]);
  out.files.push({ file: f, rows, created_by: createdBy, kv, row_groups: groups });
}
const list = '[' + files.map(lit).join(', ') + ']';
out.columns = (await all(`DESCRIBE SELECT * FROM read_parquet(${list})`)).map((r) => [r[0], r[1], r[2]]);
out.duplicates = Number((await all(`SELECT count(*) FROM read_parquet(${list}) WHERE duplicate_of IS NOT NULL`))[0][0]);
out.near_duplicates = Number((await all(`SELECT count(*) FROM read_parquet(${list}) WHERE near_duplicate_of IS NOT NULL`))[0][0]);
process.stdout.write(JSON.stringify(out));
