// Drives ouro with the official TypeScript Claude Agent SDK (@anthropic-ai/claude-agent-sdk,
// installed by .ci/sdk-clients/install), as an application would: query() with ouro as
// the Claude Code executable. Every message the SDK yields, and every callback it gets,
// is printed as one JSON line for the Go test (sdk_real_e2e_test.go) to check.
//
//   node drive.mjs SCENARIO     with OURO_BIN and WORKDIR set
import { query, tool, createSdkMcpServer } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';

const log = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const ouro = process.env.OURO_BIN;
const cwd = process.env.WORKDIR;

const calc = createSdkMcpServer({
  name: 'calc',
  version: '1.0.0',
  tools: [
    tool('add', 'Add two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => {
      log({ event: 'tool', name: 'add', a, b });
      return { content: [{ type: 'text', text: String(a + b) }] };
    }),
  ],
});

const hook = (name) => async (input) => {
  log({ event: 'hook', hook: name, tool: input.tool_name ?? null });
  return { continue: true };
};

const base = {
  pathToClaudeCodeExecutable: ouro,
  cwd,
  maxTurns: 10,
  stderr: (d) => process.stderr.write(d),
};

async function drain(q) {
  for await (const m of q) log(m);
}

const scenarios = {
  // One prompt: an in-process MCP tool, a write the SDK allows, a command it denies,
  // hooks on both sides, the system prompt as a preset with an addition.
  async tools() {
    await drain(query({
      prompt: 'add 2 and 3, then write the answer, then touch a file',
      options: {
        ...base,
        mcpServers: { calc },
        systemPrompt: { type: 'preset', preset: 'claude_code', append: 'Answer briefly.' },
        canUseTool: async (name, input) => {
          log({ event: 'canUseTool', name, input });
          if (name === 'Bash') return { behavior: 'deny', message: 'no shell today' };
          return { behavior: 'allow', updatedInput: input };
        },
        hooks: {
          PreToolUse: [{ hooks: [hook('PreToolUse')] }],
          PostToolUse: [{ hooks: [hook('PostToolUse')] }],
          Stop: [{ hooks: [hook('Stop')] }],
        },
      },
    }));
  },
  // The system prompt as a plain string, then as an array of strings.
  async systemString() {
    await drain(query({ prompt: 'hello', options: { ...base, systemPrompt: 'You are terse.' } }));
  },
  async systemArray() {
    await drain(query({ prompt: 'hello', options: { ...base, systemPrompt: ['You are terse.', 'Say ok.'] } }));
  },
  // Streaming input: two user messages, a mode and a model change between them, an
  // interrupt during the second turn; then the session resumed by its id.
  async streaming() {
    let release, finish;
    const gate = new Promise((r) => (release = r));
    const done = new Promise((r) => (finish = r));
    async function* prompts() {
      yield { type: 'user', message: { role: 'user', content: 'first' }, parent_tool_use_id: null, session_id: '' };
      await gate;
      yield { type: 'user', message: { role: 'user', content: 'second, run the slow command' }, parent_tool_use_id: null, session_id: '' };
      await done; // the input stays open until the test is through with this query
    }
    const q = query({ prompt: prompts(), options: { ...base, permissionMode: 'default' } });
    let session = '';
    let results = 0;
    let interrupted = false;
    for await (const m of q) {
      log(m);
      if (m.session_id) session = m.session_id;
      if (m.type === 'result') {
        results++;
        if (results === 1) {
          await q.setPermissionMode('bypassPermissions');
          await q.setModel('claude-sonnet-4-5');
          log({ event: 'changed' });
          release();
        }
        if (results === 2) break;
      }
      if (m.type === 'assistant' && results === 1 && !interrupted &&
          m.message.content.some((b) => b.type === 'tool_use')) {
        interrupted = true;
        await q.interrupt();
        log({ event: 'interrupted' });
      }
    }
    finish();
    q.close?.();
    log({ event: 'session', id: session });
    await drain(query({ prompt: 'what did I ask first?', options: { ...base, resume: session } }));
  },
  // maxTurns ends a run that keeps calling tools.
  async maxTurns() {
    try {
      await drain(query({ prompt: 'loop', options: { ...base, maxTurns: 2, permissionMode: 'bypassPermissions' } }));
    } catch (e) {
      // The SDK throws after yielding an error result.
      log({ event: 'thrown', message: String(e?.message ?? e) });
    }
  },
};

const name = process.argv[2];
if (!scenarios[name]) {
  console.error(`unknown scenario ${name}`);
  process.exit(2);
}
try {
  await scenarios[name]();
  log({ event: 'end' });
} catch (e) {
  log({ event: 'error', message: String(e?.stack ?? e) });
  process.exit(1);
}
