// An example plugin (docs/runner.md "Plugins"): one streaming tool, `countdown`, that streams each
// number as a `tool_partial` part, honours cancellation, and leaves a session notification when it is done.
// Load it with `"plugins": ["./scripts/example-plugin/index.ts"]` in config.json, or run ./demo.ts.
import type { PluginApi } from "../../server/plugins/loader.ts";
import type { ToolRunContext } from "../../server/plugins/tools.ts";

export default {
  name: "example",
  setup(api: PluginApi) {
    api.tools.register({
      name: "countdown",
      description: "Counts down from a number to zero, one step at a time, and says when it reached zero.",
      parameters: {
        type: "object",
        properties: { from: { type: "integer", minimum: 1, maximum: 10, description: "where to start" } },
        required: ["from"],
        additionalProperties: false,
      },
      // An async generator: every yielded value is a part (tool_partial start/stream), the return value the result.
      async *run(args: Record<string, unknown>, ctx: ToolRunContext) {
        const from = Number(args.from);
        for (let n = from; n > 0; n--) {
          if (ctx.signal.aborted) throw new Error("countdown cancelled");
          yield `${n}… `;
        }
        // The sink never throws: a failed notification is null and the tool carries on.
        await ctx.notify({ key: "example:countdown", severity: "success", title: `Countdown from ${from} finished` });
        return {
          content: `Counted down from ${from} to zero.`,
          display: { type: "text", content: `🚀 liftoff after ${from}` },
        };
      },
    });
  },
};
