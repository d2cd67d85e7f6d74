/**
 * The inline ask for a tool call (DESIGN.md §4): the tool, its server, the
 * arguments, and exactly **Allow once** / **Always allow this tool** / **Deny**
 * (AskActions.tsx: armed after 500 ms still, Always confirmed).
 *
 * The arguments are shown whole (toolArguments.ts):
 * one line per top-level argument, `name: value`, wrapped; a long value is
 * collapsed to its start with **Show all**. A call too large for this never
 * reaches the ask (the broker refuses it).
 */
import { useState } from "react";
import type { AskViewProps } from "../Capability";
import type { ToolPermissionAsk } from "./createToolBroker";
import { previewArgument, showInvisibles, type ShownArgument } from "./toolArguments";
import { AskActions } from "../../ui/AskActions";

export function ToolAskView({ ask, controller }: AskViewProps<ToolPermissionAsk>) {
  return (
    <div className="lm-ask" role="group" aria-label="Permission request">
      <p className="lm-ask__what">
        {ask.via === "app" ? "An MCP App view wants to call a tool of its server:" : "The code wants to call a tool:"}{" "}
        <strong>{showInvisibles(ask.tool)}</strong> on the MCP server <code>{ask.server}</code> at{" "}
        <code>{ask.serverUrl}</code>
        {ask.readOnly ? <span> · marked read-only by its server</span> : <span> · may change things</span>}
      </p>
      <ToolArguments list={ask.arguments} />
      <AskActions
        askId={ask.id}
        controller={controller}
        always={{
          answer: "tool",
          label: "Always allow this tool",
          title: `Allow ${ask.server}/${ask.tool} for the rest of this session`,
          question: `Always allow ${ask.server}/${ask.tool} for this session? Its later calls, with any arguments, will run without asking until you revoke it in Session settings.`,
        }}
      />
    </div>
  );
}

function ToolArguments({ list }: { list: readonly ShownArgument[] }) {
  if (list.length === 0)
    return (
      <p className="lm-ask__arguments lm-ask__arguments--none" aria-label="Arguments">
        No arguments
      </p>
    );
  return (
    <ul className="lm-ask__arguments" aria-label="Arguments">
      {list.map((argument, index) => (
        <ToolArgument key={index} argument={argument} />
      ))}
    </ul>
  );
}

function ToolArgument({ argument }: { argument: ShownArgument }) {
  const [open, setOpen] = useState(false);
  const preview = previewArgument(argument.value);
  return (
    <li className="lm-ask__argument">
      <span className="lm-ask__argument-name">{argument.name}</span>:{" "}
      <span className="lm-ask__argument-value" data-open={preview && open ? "" : undefined}>
        {preview && !open ? preview.text : argument.value}
      </span>
      {preview && (
        <>
          {!open && (
            <span className="lm-ask__argument-more">
              {" "}
              … {preview.hiddenCharacters.toLocaleString("en")} more characters
            </span>
          )}{" "}
          <button type="button" className="lm-link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? "Show less" : "Show all"}
          </button>
        </>
      )}
    </li>
  );
}
