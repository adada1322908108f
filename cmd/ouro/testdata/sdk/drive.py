"""Drives ouro with the official Python Claude Agent SDK (claude-agent-sdk, installed by
.ci/sdk-clients/install), as an application would: ouro is the CLI the SDK starts
(cli_path). Every message the SDK yields, and every callback it gets, is printed as one
JSON line for the Go test (sdk_real_e2e_test.go) to check.

    python drive.py SCENARIO     with OURO_BIN and WORKDIR set
"""

import asyncio
import dataclasses
import json
import os
import sys

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    create_sdk_mcp_server,
    query,
    tool,
)


def log(m):
    if dataclasses.is_dataclass(m):
        d = dataclasses.asdict(m)
        d["_class"] = type(m).__name__
        m = d
    sys.stdout.write(json.dumps(m, default=str) + "\n")
    sys.stdout.flush()


@tool("add", "Add two numbers", {"a": float, "b": float})
async def add(args):
    log({"event": "tool", "name": "add", "a": args["a"], "b": args["b"]})
    return {"content": [{"type": "text", "text": str(int(args["a"] + args["b"]))}]}


def hook(name):
    async def run(input_data, tool_use_id, context):
        log({"event": "hook", "hook": name, "tool": input_data.get("tool_name")})
        return {}

    return run


async def can_use_tool(name, input_data, context):
    log({"event": "canUseTool", "name": name, "input": input_data})
    if name == "Bash":
        return PermissionResultDeny(message="no shell today")
    return PermissionResultAllow(updated_input=input_data)


def base(**kw):
    return ClaudeAgentOptions(
        cli_path=os.environ["OURO_BIN"],
        cwd=os.environ["WORKDIR"],
        max_turns=10,
        stderr=lambda line: sys.stderr.write(line + "\n"),
        **kw,
    )


async def tools():
    calc = create_sdk_mcp_server(name="calc", version="1.0.0", tools=[add])
    opts = base(
        mcp_servers={"calc": calc},
        system_prompt={"type": "preset", "preset": "claude_code", "append": "Answer briefly."},
        can_use_tool=can_use_tool,
        hooks={
            "PreToolUse": [HookMatcher(hooks=[hook("PreToolUse")])],
            "PostToolUse": [HookMatcher(hooks=[hook("PostToolUse")])],
            "Stop": [HookMatcher(hooks=[hook("Stop")])],
        },
    )
    # can_use_tool needs streaming input: the prompt as an async iterable.
    async def prompts():
        yield {"type": "user", "message": {"role": "user", "content": "add 2 and 3, then write the answer, then touch a file"}}

    async for m in query(prompt=prompts(), options=opts):
        log(m)


async def client():
    """ClaudeSDKClient: a turn, set_permission_mode and set_model, a second turn
    interrupted while its command runs, then a new client resuming the session."""
    session = ""
    async with ClaudeSDKClient(options=base(permission_mode="default")) as c:
        await c.query("first")
        async for m in c.receive_response():
            log(m)
            session = getattr(m, "session_id", session) or session
        await c.set_permission_mode("bypassPermissions")
        await c.set_model("claude-sonnet-4-5")
        log({"event": "changed"})
        await c.query("second, run the slow command")
        interrupted = False
        async for m in c.receive_response():
            log(m)
            if not interrupted and type(m).__name__ == "AssistantMessage" and any(
                type(b).__name__ == "ToolUseBlock" for b in m.content
            ):
                interrupted = True
                await c.interrupt()
                log({"event": "interrupted"})
    log({"event": "session", "id": session})
    async with ClaudeSDKClient(options=base(resume=session)) as c:
        await c.query("what did I ask first?")
        async for m in c.receive_response():
            log(m)


async def main():
    name = sys.argv[1]
    scenario = {"tools": tools, "client": client}.get(name)
    if scenario is None:
        print(f"unknown scenario {name}", file=sys.stderr)
        sys.exit(2)
    await scenario()
    log({"event": "end"})


if __name__ == "__main__":
    asyncio.run(main())
