// Compiles every tool schema of an MCP `tools/list` answer with ajv in strict mode
// (JSON Schema 2020-12, MCP's dialect), as strict clients do; prints each failure and
// exits 1 on any. Usage: node check-schemas.mjs <npm tools dir> <tools/list JSON file>
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const [toolsDir, listFile] = process.argv.slice(2);
const require = createRequire(join(toolsDir, "package.json"));
const Ajv2020 = require("ajv/dist/2020").default;

const list = JSON.parse(readFileSync(listFile, "utf8"));
const tools = list.tools ?? list.result?.tools;
if (!Array.isArray(tools) || tools.length === 0) {
  console.error(`no tools in ${listFile}`);
  process.exit(1);
}
let failed = 0;
for (const tool of tools) {
  for (const key of ["inputSchema", "outputSchema"]) {
    const schema = tool[key];
    if (schema === undefined) continue;
    // A fresh instance per schema: each is compiled alone, as a client does.
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    try {
      ajv.compile(schema);
    } catch (e) {
      failed++;
      console.error(`${tool.name}.${key}: ${e.message}\n  ${JSON.stringify(schema)}`);
    }
  }
}
console.log(`${tools.length} tools, ${failed} schemas refused`);
process.exit(failed === 0 ? 0 : 1);
