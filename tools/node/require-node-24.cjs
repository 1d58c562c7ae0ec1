// Stops `npm start` and `npm test` on another Node with one line that says what to do, instead of the segmentation
// fault better-sqlite3 13 gives on Node 20 (docs/toolchain.md). The major must match `engines` in package.json.
const REQUIRED_MAJOR = 24;

function requireNode24(what, version = process.versions.node) {
  const major = Number(version.split('.')[0]);
  if (major === REQUIRED_MAJOR) return;
  process.stderr.write(
    `${what} needs Node ${REQUIRED_MAJOR} (this is ${version}). Run: eval "$(tools/node/use-node-24.sh)"` +
      ` (fetches Node ${REQUIRED_MAJOR} into ~/.cache/rp-node once), then ${what} again.\n`,
  );
  process.exit(1);
}

module.exports = { REQUIRED_MAJOR, requireNode24 };
