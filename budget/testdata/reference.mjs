// Counts each definition of definitions.json in o200k_base with
// gpt-tokenizer (an independent implementation, in JavaScript), and
// writes reference.json: the definitions with their counts. Not run by
// the tests; to make the reference again:
//
//   go test ./budget -run TestWriteDefinitions -write-definitions
//   mkdir /tmp/ref && cd /tmp/ref && npm install gpt-tokenizer@3.4.0
//   REF_MODULES=/tmp/ref/node_modules node budget/testdata/reference.mjs
//
// (gpt-tokenizer 3.4.0; NODE_PATH does not reach ES modules, so the
// import below names the package by its path, REF_MODULES.)
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = process.env.REF_MODULES ?? "/tmp/ref/node_modules";
const { countTokens } = await import(join(modules, "gpt-tokenizer/esm/encoding/o200k_base.js"));

const defs = JSON.parse(readFileSync(join(here, "definitions.json"), "utf8"));
const out = defs.map((d) => ({
  format: d.format,
  name: d.name,
  // The text counted is the definition exactly as strata writes it
  // (compact JSON), held as a string.
  text: d.text,
  tokens: countTokens(d.text),
}));
writeFileSync(join(here, "reference.json"), JSON.stringify(out, null, 1) + "\n");
console.log(`${out.length} definitions, ${out.reduce((n, d) => n + d.tokens, 0)} tokens`);
