// Run tests/pyodide/check.py inside Pyodide, with onnxdata's source written
// into Pyodide's in-memory file system.  Nothing may touch the network: any
// fetch() or socket connection is refused and reported, and fails the run.
//
//   node run.mjs PACKAGE DATA_DIR CHECK_PY
//
// PACKAGE is either the onnxdata/ folder, whose files are copied to
// /work/src/onnxdata/ and put on sys.path, or a built onnxdata wheel, which is
// unpacked into site-packages with pyodide.unpackArchive (what a page does
// with a wheel it serves).  DATA_DIR is the folder of sample .pb and .onnx files,
// CHECK_PY the check script.  Prints what Python prints; the check
// ends with a line "RESULT {json}".  Exit status 0 on success, 1 on failure.

import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { createRequire } from "node:module";

const attempts = [];
globalThis.fetch = async (url) => {
  attempts.push(`fetch ${url}`);
  throw new Error(`network access refused: fetch ${url}`);
};
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  attempts.push(`connect ${JSON.stringify(args[0])}`);
  return connect.apply(this, args).destroy(new Error("network access refused"));
};

const [packageArg, dataDir, checkPy] = process.argv.slice(2);
if (!checkPy) {
  console.error("usage: node run.mjs PACKAGE DATA_DIR CHECK_PY");
  process.exit(2);
}

const require = createRequire(import.meta.url);
const indexURL = path.dirname(require.resolve("pyodide/package.json")) + path.sep;
const { loadPyodide } = await import("pyodide");

let status = 0;
try {
  const t0 = performance.now();
  const pyodide = await loadPyodide({
    indexURL,
    stdout: (line) => console.log(line),
    stderr: (line) => console.error(line),
  });
  console.log(`PYODIDE ${pyodide.version} loaded in ${Math.round(performance.now() - t0)} ms`);

  const FS = pyodide.FS;
  FS.mkdirTree("/work/data");
  if (packageArg.endsWith(".whl")) {
    const site = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
    const wheel = new Uint8Array(fs.readFileSync(packageArg));
    pyodide.unpackArchive(wheel, "wheel", { extractDir: site });
  } else {
    // The package's folders are its layers: copy the tree, every .py and py.typed.
    const copyTree = (from, to) => {
      FS.mkdirTree(to);
      for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
        const source = path.join(from, entry.name);
        if (entry.isDirectory() && entry.name !== "__pycache__") {
          copyTree(source, `${to}/${entry.name}`);
        } else if (entry.name.endsWith(".py") || entry.name === "py.typed") {
          FS.writeFile(`${to}/${entry.name}`, fs.readFileSync(source));
        }
      }
    };
    copyTree(packageArg, "/work/src/onnxdata");
  }
  for (const name of fs.readdirSync(dataDir)) {
    if (name.endsWith(".pb") || name.endsWith(".onnx")) {
      FS.writeFile(`/work/data/${name}`, fs.readFileSync(path.join(dataDir, name)));
    }
  }
  FS.writeFile("/work/check.py", fs.readFileSync(checkPy));

  pyodide.runPython(`
import runpy, sys
sys.path.insert(0, "/work/src")
sys.argv = ["check.py", "/work/data"]
runpy.run_path("/work/check.py", run_name="__main__")
`);
} catch (err) {
  console.error(String(err && err.message ? err.message : err));
  status = 1;
}
if (attempts.length) {
  console.error(`NETWORK ACCESS ATTEMPTED: ${attempts.join("; ")}`);
  status = 1;
}
process.exit(status);
