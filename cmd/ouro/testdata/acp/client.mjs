// An editor's side of ACP, on the official TypeScript library (@agentclientprotocol/sdk):
// it starts `ouro acp`, opens a session, sends the prompts the Go test scripted the model
// for, answers permission requests from a list, cancels a turn midway, then starts ouro
// again and loads (resumes) the session. It prints one JSON report for the test to check.
//
//   node client.mjs OURO_BINARY PROJECT_DIR ANSWER...
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const [ouro, cwd, ...answers] = process.argv.slice(2);

// One connection to a fresh `ouro acp` process; updates land in `sink`.
async function withOuro(sink, asked, onUpdate, op) {
  const child = spawn(ouro, ["acp"], { cwd, stdio: ["pipe", "pipe", "inherit"] });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = client({ name: "ouro-e2e" })
    .onNotification(methods.client.session.update, ({ params }) => {
      sink.push(params.update);
      if (onUpdate) onUpdate(params);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      const answer = answers.shift() ?? "allow_once";
      asked.push({ title: params.toolCall.title, kind: params.toolCall.kind, options: params.options.map((o) => `${o.optionId}:${o.kind}`), answer });
      return { outcome: { outcome: "selected", optionId: answer } };
    });
  try {
    return await app.connectWith(stream, op);
  } finally {
    child.stdin.end();
    await new Promise((done) => (child.exitCode !== null ? done() : child.on("exit", done)));
  }
}

// summary is one line per update, the chunks of one message joined (they stream in pieces).
function summary(updates) {
  const lines = [];
  updates.forEach((u, i) => {
    const prev = updates[i - 1];
    if (prev && u.sessionUpdate.endsWith("_chunk") && prev.sessionUpdate === u.sessionUpdate && u.content.type === "text") {
      lines[lines.length - 1] += u.content.text;
    } else {
      lines.push(line(u));
    }
  });
  return lines;
}

const line = (u) => {
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
      case "user_message_chunk":
      case "agent_thought_chunk":
        return `${u.sessionUpdate}:${u.content.text ?? u.content.type}`;
      case "tool_call":
        return `tool_call:${u.kind}:${u.status}:${u.title}`;
      case "tool_call_update":
        return `tool_call_update:${u.status ?? ""}`;
      case "available_commands_update":
        return `available_commands_update:${u.availableCommands.map((c) => c.name).join(";")}`;
      case "plan":
        return `plan:${u.entries.map((e) => e.content).join(";")}`;
      default:
        return u.sessionUpdate;
    }
};

const report = { asked: [] };
const live = [];
let sessionId, ctxRef;
await withOuro(live, report.asked, (n) => {
  // Cancel the second prompt once its command runs.
  const u = n.update;
  if (u.sessionUpdate === "tool_call_update" && u.status === "in_progress" && report.waitCall === u.toolCallId) {
    ctxRef.notify(methods.agent.session.cancel, { sessionId: n.sessionId });
  }
  if (u.sessionUpdate === "tool_call" && u.kind === "execute" && /sleep/.test(u.title)) {
    report.waitCall = u.toolCallId;
  }
}, async (ctx) => {
  ctxRef = ctx;
  const init = await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  report.init = init;
  const s = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
  sessionId = s.sessionId;
  report.modes = s.modes;
  const first = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "tidy notes.txt" }, { type: "resource_link", name: "notes.txt", uri: `file://${cwd}/notes.txt` }] });
  report.stop1 = first.stopReason;
  const turn1 = live.splice(0);
  report.turn1 = summary(turn1);
  report.diffs = turn1.flatMap((u) => (u.sessionUpdate === "tool_call" ? u.content ?? [] : []).filter((c) => c.type === "diff"));
  const second = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "wait for it" }] });
  report.stop2 = second.stopReason;
  report.turn2 = summary(live.splice(0));
});

const replay = [];
await withOuro(replay, report.asked, null, async (ctx) => {
  await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  await ctx.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  report.replay = summary(replay.splice(0));
  const third = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "after load" }] });
  report.stop3 = third.stopReason;
  report.turn3 = summary(replay.splice(0));
});
report.sessionId = sessionId;
console.log(JSON.stringify(report));
