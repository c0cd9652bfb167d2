// The parts of Paseo's provider-protocol schemas that both host generations share, written by
// hand (zod 4) from the facts of `getpaseo/paseo` `packages/plugin/src/server/provider.ts` at
// commit bd898554 (the @getpaseo/plugin 0.9.x generation): which fields exist, which are
// optional, their types and limits, and the object modes (inputs `.strict()`: an unknown key is
// refused; events `.strip()`: an unknown key is dropped). Each generation's module
// (`schemas-0.9.mjs`, `schemas-newest.mjs`) assembles its own input and event schemas from them.

import { z } from "zod";

/** An id: a non-empty string. */
export const id = z.string().min(1);
/** `Record<string, Json>`. */
export const jsonObject = z.record(z.string(), z.json());

export const providerError = z
  .object({ message: z.string(), code: z.string().optional(), diagnostic: z.string().optional() })
  .strip();
export const persistence = z.object({ version: z.number().int().nonnegative(), data: z.json() }).strip();

// ---- inputs ------------------------------------------------------------------------------

const stdioServer = z
  .object({
    type: z.literal("stdio"),
    command: z.string(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    alwaysLoad: z.boolean().optional(),
  })
  .strict();
const remoteServer = (type) =>
  z
    .object({
      type: z.literal(type),
      url: z.string(),
      headers: z.record(z.string(), z.string()).optional(),
      alwaysLoad: z.boolean().optional(),
    })
    .strict();
export const mcpServer = z.discriminatedUnion("type", [stdioServer, remoteServer("http"), remoteServer("sse")]);

export const toolPolicy = z
  .object({
    preapproved: z.array(z.object({ kind: z.literal("mcp"), server: id, tool: id }).strict()),
  })
  .strict();

export const permissionResponse = z.discriminatedUnion("behavior", [
  z
    .object({
      behavior: z.literal("allow"),
      selectedActionId: z.string().optional(),
      updatedInput: jsonObject.optional(),
      updatedPermissions: z.array(jsonObject).optional(),
    })
    .strip(),
  z
    .object({
      behavior: z.literal("deny"),
      selectedActionId: z.string().optional(),
      message: z.string().optional(),
      interrupt: z.boolean().optional(),
    })
    .strip(),
]);

const nullableString = z.string().nullable().optional();
const positiveInt = z.number().int().positive();
const contextLine = z
  .object({
    oldLineNumber: positiveInt.nullable(),
    newLineNumber: positiveInt.nullable(),
    type: z.enum(["add", "remove", "context"]),
    content: z.string(),
  })
  .strip();
const externalResource = z
  .object({
    provider: z.string(),
    providerLabel: z.string(),
    resourceType: z.string(),
    id: z.string(),
    identifier: z.string(),
    title: z.string(),
    url: z.string(),
  })
  .strip();

/** `ProviderContent`: a plain union (two variants share `type: "text"`). */
export const content = z.union([
  z.object({ type: z.literal("text"), text: z.string() }).strict(),
  z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string() }).strict(),
  z
    .object({
      type: z.literal("forge_change_request"),
      mimeType: z.literal("application/paseo-forge-change-request"),
      forge: z.string().optional(),
      number: positiveInt,
      title: z.string(),
      url: z.string(),
      body: nullableString,
      projectPath: z.string().optional(),
      baseRefName: nullableString,
      headRefName: nullableString,
    })
    .strip(),
  z
    .object({
      type: z.literal("forge_issue"),
      mimeType: z.literal("application/paseo-forge-issue"),
      forge: z.string().optional(),
      number: positiveInt,
      title: z.string(),
      url: z.string(),
      body: nullableString,
      projectPath: z.string().optional(),
    })
    .strip(),
  z
    .object({
      type: z.literal("github_pr"),
      mimeType: z.literal("application/github-pr"),
      number: positiveInt,
      title: z.string(),
      url: z.string(),
      body: nullableString,
      baseRefName: nullableString,
      headRefName: nullableString,
    })
    .strip(),
  z
    .object({
      type: z.literal("github_issue"),
      mimeType: z.literal("application/github-issue"),
      number: positiveInt,
      title: z.string(),
      url: z.string(),
      body: nullableString,
    })
    .strip(),
  z
    .object({
      type: z.literal("text"),
      mimeType: z.literal("text/plain"),
      contextKind: z.string().optional(),
      title: nullableString,
      text: z.string(),
      externalResource: externalResource.optional(),
    })
    .strip(),
  z
    .object({
      type: z.literal("review"),
      mimeType: z.literal("application/paseo-review"),
      cwd: z.string(),
      mode: z.enum(["uncommitted", "base"]),
      baseRef: nullableString,
      comments: z.array(
        z
          .object({
            filePath: z.string(),
            side: z.enum(["old", "new"]),
            lineNumber: positiveInt,
            body: z.string(),
            context: z
              .object({ hunkHeader: z.string(), targetLine: contextLine, lines: z.array(contextLine) })
              .strip(),
          })
          .strip(),
      ),
    })
    .strip(),
  z
    .object({
      type: z.literal("uploaded_file"),
      id: z.string(),
      fileName: z.string(),
      mimeType: z.string(),
      size: z.number().int().nonnegative(),
      path: z.string(),
    })
    .strip(),
]);

export const prompt = z
  .object({
    clientMessageId: id,
    delivery: z.enum(["auto", "steer"]),
    input: z.union([
      z.object({ type: z.literal("message"), content: z.array(content) }).strict(),
      z.object({ type: z.literal("command"), name: id, arguments: z.string() }).strict(),
    ]),
    outputSchema: z.json().optional(),
    clearPendingPermissions: z.boolean().optional(),
  })
  .strict();

/** The inputs that are the same in both generations. */
export function commonInputs({ catalogConfiguration }) {
  return [
    z.object({ type: z.literal("catalog"), requestId: id, cwd: z.string().optional(), ...catalogConfiguration }).strict(),
    z
      .object({
        type: z.literal("sessions"),
        requestId: id,
        query: z.string().optional(),
        cwd: z.string().optional(),
        limit: z.number().int().positive().optional(),
        ...catalogConfiguration,
      })
      .strict(),
    z.object({ type: z.literal("session.prompt"), sessionId: id, prompt }).strict(),
    z.object({ type: z.literal("session.interrupt"), requestId: id, sessionId: id }).strict(),
    z
      .object({ type: z.literal("session.permission"), sessionId: id, permissionId: id, response: permissionResponse })
      .strict(),
    z
      .object({
        type: z.literal("session.revert"),
        requestId: id,
        sessionId: id,
        token: z.json(),
        scope: z.enum(["conversation", "files", "both"]),
      })
      .strict(),
    z.object({ type: z.literal("session.archive"), requestId: id, persistence }).strict(),
    z.object({ type: z.literal("session.unarchive"), requestId: id, persistence }).strict(),
    z.object({ type: z.literal("session.close"), requestId: id, sessionId: id }).strict(),
  ];
}

// ---- events ------------------------------------------------------------------------------

export const mode = z
  .object({
    id,
    label: z.string(),
    description: z.string().optional(),
    icon: z.string().optional(),
    colorTier: z.string().optional(),
    isUnattended: z.boolean().optional(),
  })
  .strip();
export const thinkingOption = z
  .object({
    id,
    label: z.string(),
    description: z.string().optional(),
    isDefault: z.boolean().optional(),
    metadata: jsonObject.optional(),
  })
  .strip();
export const model = z
  .object({
    id,
    aliases: z.array(z.string()).optional(),
    isSelectable: z.boolean().optional(),
    label: z.string(),
    description: z.string().optional(),
    isDefault: z.boolean().optional(),
    metadata: jsonObject.optional(),
    contextWindowMaxTokens: z.number().optional(),
    thinkingOptions: z.array(thinkingOption).optional(),
    defaultThinkingOptionId: z.string().optional(),
  })
  .strip();
/** Legacy `ProviderSetting`. */
export const setting = z.discriminatedUnion("type", [
  z
    .object({ type: z.literal("toggle"), id, label: z.string(), description: z.string().optional(), value: z.boolean() })
    .strip(),
  z
    .object({
      type: z.literal("select"),
      id,
      label: z.string(),
      description: z.string().optional(),
      value: z.string().nullable(),
      options: z.array(z.object({ label: z.string(), value: z.string() }).strip()),
    })
    .strip(),
]);
export const catalog = z
  .object({
    models: z.array(model),
    modes: z.array(mode),
    thinkingOptions: z.array(thinkingOption).optional(),
    defaultModel: z.string().optional(),
    defaultMode: z.string().optional(),
    defaultThinkingOption: z.string().optional(),
  })
  .strip();
const notice = z
  .object({
    id,
    severity: z.enum(["info", "warning", "error"]),
    title: z.string(),
    description: z.string().optional(),
    dismissed: z.boolean().optional(),
  })
  .strip();
const command = z.object({ name: id, description: z.string(), argumentHint: z.string().optional() }).strip();
const usage = z
  .object({
    inputTokens: z.number().optional(),
    cachedInputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    totalCostUsd: z.number().optional(),
    contextWindowMaxTokens: z.number().optional(),
    contextWindowUsedTokens: z.number().optional(),
  })
  .strip();

const optionalNumber = z.number().optional();
export const toolDetail = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("shell"),
      command: z.string(),
      cwd: z.string().optional(),
      output: z.string().optional(),
      exitCode: z.number().nullable().optional(),
    })
    .strip(),
  z
    .object({
      type: z.literal("read"),
      filePath: z.string(),
      content: z.string().optional(),
      offset: optionalNumber,
      limit: optionalNumber,
    })
    .strip(),
  z
    .object({
      type: z.literal("edit"),
      filePath: z.string(),
      oldString: z.string().optional(),
      newString: z.string().optional(),
      unifiedDiff: z.string().optional(),
    })
    .strip(),
  z.object({ type: z.literal("write"), filePath: z.string(), content: z.string().optional() }).strip(),
  z
    .object({
      type: z.literal("search"),
      query: z.string(),
      toolName: z.enum(["search", "grep", "glob", "web_search"]).optional(),
      content: z.string().optional(),
      filePaths: z.array(z.string()).optional(),
      webResults: z.array(z.object({ title: z.string(), url: z.string() }).strip()).optional(),
      annotations: z.array(z.string()).optional(),
      numFiles: optionalNumber,
      numMatches: optionalNumber,
      durationMs: optionalNumber,
      durationSeconds: optionalNumber,
      truncated: z.boolean().optional(),
      mode: z.enum(["content", "files_with_matches", "count"]).optional(),
    })
    .strip(),
  z
    .object({
      type: z.literal("fetch"),
      url: z.string(),
      prompt: z.string().optional(),
      result: z.string().optional(),
      code: optionalNumber,
      codeText: z.string().optional(),
      bytes: optionalNumber,
      durationMs: optionalNumber,
    })
    .strip(),
  z
    .object({
      type: z.literal("worktree_setup"),
      worktreePath: z.string(),
      branchName: z.string(),
      log: z.string(),
      commands: z.array(
        z
          .object({
            index: positiveInt,
            command: z.string(),
            cwd: z.string(),
            log: z.string(),
            status: z.enum(["running", "completed", "failed"]),
            exitCode: z.number().nullable(),
            durationMs: z.number().nonnegative().optional(),
          })
          .strip(),
      ),
      truncated: z.boolean().optional(),
    })
    .strip(),
  z
    .object({
      type: z.literal("sub_agent"),
      subAgentType: z.string().optional(),
      description: z.string().optional(),
      childSessionId: z.string().optional(),
      log: z.string(),
      actions: z
        .array(z.object({ index: positiveInt, toolName: z.string(), summary: z.string().optional() }).strip())
        .optional(),
    })
    .strip(),
  z
    .object({
      type: z.literal("plain_text"),
      label: z.string().optional(),
      text: z.string().optional(),
      icon: z
        .enum(["wrench", "square_terminal", "eye", "pencil", "search", "bot", "sparkles", "brain", "mic_vocal"])
        .optional(),
    })
    .strip(),
  z.object({ type: z.literal("plan"), text: z.string() }).strip(),
  z.object({ type: z.literal("unknown"), input: z.json(), output: z.json() }).strip(),
]);

const identity = { id, revertToken: z.json().optional() };
const toolCall = { ...identity, type: z.literal("tool_call"), callId: id, name: z.string(), detail: toolDetail, metadata: jsonObject.optional() };
export const timelineItem = z.union([
  z
    .object({
      ...identity,
      type: z.literal("user_message"),
      text: z.string(),
      messageId: z.string().optional(),
      clientMessageId: z.string().optional(),
    })
    .strip(),
  z.object({ ...identity, type: z.literal("assistant_message"), text: z.string(), messageId: z.string().optional() }).strip(),
  z.object({ ...identity, type: z.literal("reasoning"), text: z.string() }).strip(),
  z.object({ ...toolCall, status: z.literal("running"), error: z.null() }).strip(),
  z.object({ ...toolCall, status: z.literal("completed"), error: z.null() }).strip(),
  z.object({ ...toolCall, status: z.literal("failed"), error: z.json() }).strip(),
  z.object({ ...toolCall, status: z.literal("canceled"), error: z.null() }).strip(),
  z
    .object({
      ...identity,
      type: z.literal("todo"),
      items: z.array(
        z
          .object({
            text: z.string(),
            completed: z.boolean(),
            id: z.string().optional(),
            status: z.enum(["pending", "in_progress", "completed"]).optional(),
            activeForm: z.string().optional(),
          })
          .strip(),
      ),
    })
    .strip(),
  z.object({ ...identity, type: z.literal("error"), message: z.string() }).strip(),
  z
    .object({ ...identity, type: z.literal("notification"), level: z.enum(["info", "warning", "error"]), message: z.string() })
    .strip(),
  z
    .object({
      ...identity,
      type: z.literal("compaction"),
      status: z.enum(["loading", "completed"]),
      trigger: z.enum(["auto", "manual"]).optional(),
      preTokens: optionalNumber,
    })
    .strip(),
  z
    .object({ ...identity, type: z.literal("plugin"), pluginId: id, kind: z.string(), version: z.number(), data: z.json() })
    .strip(),
]);

const permissionAction = z
  .object({
    id,
    label: z.string(),
    behavior: z.enum(["allow", "deny"]),
    variant: z.enum(["primary", "secondary", "danger"]).optional(),
    intent: z.enum(["implement", "implement_resume", "dismiss"]).optional(),
  })
  .strip();
const permissionRequest = z
  .object({
    id,
    name: z.string(),
    kind: z.enum(["tool", "plan", "question", "mode", "other"]),
    title: z.string().optional(),
    description: z.string().optional(),
    input: jsonObject.optional(),
    detail: toolDetail.optional(),
    suggestions: z.array(jsonObject).optional(),
    actions: z.array(permissionAction).optional(),
    metadata: jsonObject.optional(),
  })
  .strip();

/** The events that are the same in both generations (all but `session.config`). */
export function commonEvents() {
  return [
    z.object({ type: z.literal("catalog"), requestId: id, catalog }).strip(),
    z
      .object({
        type: z.literal("sessions"),
        requestId: id,
        sessions: z.array(
          z
            .object({
              persistence,
              cwd: z.string(),
              title: z.string().optional(),
              description: z.string().optional(),
              updatedAt: z.string().optional(),
              firstPromptPreview: z.string().max(160).optional(),
              lastPromptPreview: z.string().max(160).optional(),
            })
            .strip(),
        ),
      })
      .strip(),
    z.object({ type: z.literal("request.completed"), requestId: id }).strip(),
    z.object({ type: z.literal("request.failed"), requestId: id, error: providerError }).strip(),
    z
      .object({
        type: z.literal("session.opened"),
        requestId: id.optional(),
        sessionId: id,
        parentSessionId: id.optional(),
        capabilities: z.array(z.string()),
        restoration: z.enum(["core", "parent"]),
        persistence: persistence.optional(),
        title: z.string().optional(),
        description: z.string().optional(),
        cwd: z.string(),
      })
      .strip(),
    z.object({ type: z.literal("session.ready"), requestId: id.optional(), sessionId: id }).strip(),
    z.object({ type: z.literal("session.closed"), sessionId: id, error: providerError.optional() }).strip(),
    z.object({ type: z.literal("session.runtime_failed"), sessionId: id, error: providerError }).strip(),
    z.object({ type: z.literal("session.persistence"), sessionId: id, persistence }).strip(),
    z
      .object({
        type: z.literal("session.prompt_result"),
        sessionId: id,
        clientMessageId: id,
        result: z.union([
          z.object({ type: z.literal("turn"), turnId: id }).strip(),
          z.object({ type: z.literal("steer"), turnId: id }).strip(),
          z.object({ type: z.literal("completed") }).strip(),
          z.object({ type: z.literal("failed"), error: providerError }).strip(),
        ]),
      })
      .strip(),
    z
      .object({
        type: z.literal("session.turn"),
        sessionId: id,
        turnId: id,
        state: z.enum(["started", "completed", "failed", "canceled"]),
        error: providerError.optional(),
      })
      .strip(),
    z.object({ type: z.literal("session.usage"), sessionId: id, turnId: id.optional(), usage }).strip(),
    z.object({ type: z.literal("session.commands"), sessionId: id, commands: z.array(command) }).strip(),
    z.object({ type: z.literal("session.permission"), sessionId: id, request: permissionRequest }).strip(),
    z.object({ type: z.literal("session.permission_resolved"), sessionId: id, permissionId: id }).strip(),
    z.object({ type: z.literal("session.notice"), sessionId: id, notice }).strip(),
    z
      .object({ type: z.literal("timeline.item"), sessionId: id, item: timelineItem, timestamp: z.string().optional() })
      .strip(),
  ];
}

/** `negotiateProviderCapabilities`-style helpers over one generation's capability list. */
export function capabilityHelpers(capabilities) {
  const known = new Set(capabilities);
  function requiredPromptCapabilities(p) {
    const needed = [];
    if (p.delivery === "steer") needed.push("prompt.steer");
    if (p.input.type === "command") needed.push("prompt.command");
    else {
      needed.push("prompt.message");
      if (p.input.content.some((part) => part.type === "image")) needed.push("prompt.image");
    }
    if (p.outputSchema !== undefined) needed.push("prompt.output_schema");
    return needed;
  }
  function requiredProviderCapabilities(input) {
    switch (input.type) {
      case "sessions":
        return ["session.list"];
      case "session.open": {
        const needed = [];
        if (input.persistence) needed.push("session.persistence");
        if (input.config.toolPolicy) needed.push("permission.tool_policy");
        return needed;
      }
      case "session.prompt":
        return requiredPromptCapabilities(input.prompt);
      case "session.permission":
        return ["permission"];
      case "session.configure":
        return ["session.configure"];
      case "session.revert":
        return [`session.revert.${input.scope}`];
      case "session.archive":
        return ["session.archive"];
      case "session.unarchive":
        return ["session.unarchive"];
      case "session.can_stop_runtime":
        return ["session.can_stop_runtime"];
      default:
        return [];
    }
  }
  return {
    isProviderCapability: (capability) => known.has(capability),
    requiredProviderCapabilities,
    requireProviderCapabilities(granted, input) {
      for (const capability of requiredProviderCapabilities(input)) {
        if (!granted.includes(capability)) throw new Error(`Provider does not support ${capability}`);
      }
    },
  };
}
