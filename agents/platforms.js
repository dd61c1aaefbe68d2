// Which platforms agents/package-lock.json pins every agent CLI's native binary for (with its integrity
// hash), and whether this machine is one of them. The CLIs are npm wrappers around a native binary chosen
// per platform from their optional dependencies; npm installs an optional dependency the lockfile lacks
// without any integrity check (and OpenCode 1.18.33 publishes none for linux-arm64 or musl), so the install
// refuses a platform the lockfile does not cover instead.
//   node platforms.js          -> exit 0 when this machine is covered, else 1 with what is covered
//   node platforms.js --list   -> the covered platforms, one per line ("linux-x64-glibc", ...)
"use strict";
const lock = require("./package-lock.json");
const wanted = Object.keys(require("./package.json").dependencies);

function libcOf(name, entry) {
  // A package without a libc field is taken for glibc unless its name says musl (OpenCode's are named so).
  if (entry.libc) return entry.libc;
  return name.includes("musl") ? ["musl"] : ["glibc"];
}

function platformsOf(cli) {
  const entry = lock.packages["node_modules/" + cli] || {};
  const found = new Set();
  for (const name of Object.keys(entry.optionalDependencies || {})) {
    const native = lock.packages["node_modules/" + name];
    if (!native || !native.integrity || !native.os || !native.cpu) continue;
    for (const os of native.os)
      for (const cpu of native.cpu)
        for (const libc of os === "linux" ? libcOf(name, native) : ["-"]) found.add(`${os}-${cpu}-${libc}`);
  }
  return found;
}

const perCli = wanted.map((cli) => [cli, platformsOf(cli)]);
const covered = [...perCli[0][1]].filter((p) => perCli.every(([, set]) => set.has(p))).sort();
if (process.argv.includes("--list")) {
  console.log(covered.join("\n"));
  process.exit(0);
}
const header = process.report.getReport().header;
const libc = process.platform === "linux" ? (header.glibcVersionRuntime ? "glibc" : "musl") : "-";
const here = `${process.platform}-${process.arch}-${libc}`;
if (!covered.includes(here)) {
  console.error(
    `agents/package-lock.json pins every agent CLI's native binary for ${covered.join(", ")} only; ` +
      `this machine is ${here}. Per CLI: ` +
      perCli.map(([cli, set]) => `${cli}: ${[...set].sort().join(" ")}`).join("; ")
  );
  process.exit(1);
}
