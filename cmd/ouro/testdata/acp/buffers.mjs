// An editor that offers its file system (fs/read_text_file, fs/write_text_file) with one
// unsaved buffer, on the official TypeScript ACP library: ouro should read and edit the
// buffer, not the file on disk. It switches the session to acceptEdits (session/set_mode)
// so the edit is not asked about, and prints a JSON report.
//
//   node buffers.mjs OURO_BINARY PROJECT_DIR FILE UNSAVED_TEXT
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const [ouro, cwd, file, unsaved] = process.argv.slice(2);
const buffers = new Map([[file, unsaved]]);
const report = { fs: [], modes: [] };

const child = spawn(ouro, ["acp"], { cwd, stdio: ["pipe", "pipe", "inherit"] });
const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const app = client({ name: "ouro-e2e-buffers" })
  .onNotification(methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === "current_mode_update") report.modes.push(params.update.currentModeId);
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    report.fs.push(`read ${params.path}`);
    return { content: buffers.get(params.path) ?? "" };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    report.fs.push(`write ${params.path}`);
    buffers.set(params.path, params.content);
    return {};
  })
  .onRequest(methods.client.session.requestPermission, () => {
    report.asked = true;
    return { outcome: { outcome: "cancelled" } };
  });
await app.connectWith(stream, async (ctx) => {
  await ctx.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  });
  const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
  await ctx.request(methods.agent.session.setMode, { sessionId, modeId: "acceptEdits" });
  const r = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "edit the buffer" }] });
  report.stop = r.stopReason;
});
child.stdin.end();
await new Promise((done) => (child.exitCode !== null ? done() : child.on("exit", done)));
report.buffer = buffers.get(file);
console.log(JSON.stringify(report));
