/**
 * Session settings → **Agents in this browser** (WebMCP): the session's
 * switch, off by default, saved with the session. While on, the page offers
 * livemark_run (each run confirmed here), livemark_read_session and
 * livemark_report to an agent the browser runs.
 */
export function WebMcpSettings({
  available,
  enabled,
  registered,
  disabled,
  onChange,
}: {
  available: boolean;
  enabled: boolean;
  registered: boolean;
  disabled: boolean;
  onChange: (on: boolean) => void;
}) {
  return (
    <section className="lm-field" aria-label="Agents in this browser">
      <h3 className="lm-dialog__subtitle">Agents in this browser</h3>
      <label>
        <input
          type="checkbox"
          checked={enabled}
          disabled={disabled}
          onChange={(event) => onChange(event.target.checked)}
        />{" "}
        Let agents in this browser use this session
      </label>
      <small>
        {available
          ? registered
            ? "Offered now (WebMCP): livemark_run, which you confirm each time with Allow once or Reject; livemark_read_session; livemark_report."
            : "This browser offers WebMCP: while this is on, an agent the browser runs can read this session, report to you and ask to run code here (you confirm each run)."
          : "This browser does not offer WebMCP (document.modelContext): nothing is offered, whatever this says."}{" "}
        Each decision is in the audit list.
      </small>
    </section>
  );
}
