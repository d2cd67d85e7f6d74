/**
 * CSS for the mount panel and the kit, scoped under `.lm-mount`.
 *
 * Specificity ladder, so a model's Tailwind classes always win over the kit
 * (shadcn's `<Button className="w-full">`):
 *   preflight + kit   `.lm-mount :where(.lmk-x)`   (0,1,0), kit after preflight
 *   utilities         `.lm-mount .p-4`             (0,2,0)
 *   style props       inline
 * Colours follow the app's theme variables (src/ui/styles.css) with
 * fallbacks, so mounts switch with the app's light/dark scheme.
 */
const S = ".lm-mount";

export const KIT_CSS = `
${S}{contain:layout paint;overflow:auto;position:relative;isolation:isolate;max-height:min(80vh,1200px);
--lmk-fg:var(--lm-text,#1d1d1f);--lmk-muted:var(--lm-muted,#6b6b70);--lmk-border:var(--lm-border,#e3e3e0);
--lmk-bg:var(--lm-surface,#fff);--lmk-subtle:color-mix(in srgb,var(--lmk-fg) 7%,transparent);
--lmk-primary:var(--lmk-fg);--lmk-primary-fg:var(--lmk-bg);--lmk-accent:var(--lm-accent,#3d5afe);
--lmk-danger:var(--lm-err,#c62828);--lmk-radius:8px;
color:var(--lmk-fg);background:var(--lmk-bg);border:1px solid var(--lmk-border);border-radius:12px;padding:12px;
font-size:14px;line-height:1.5;margin:10px 0;}
${S}[data-inert]{opacity:.92}
${S}[data-waiting]{border-color:var(--lmk-accent)}
${S} :where(*,::before,::after){box-sizing:border-box;border-width:0;border-style:solid;border-color:var(--lmk-border)}
${S} :where(h1,h2,h3,h4,h5,h6){font-size:inherit;font-weight:inherit;margin:0}
${S} :where(p,blockquote,figure,pre,dl,dd,hr){margin:0}
${S} :where(ol,ul){list-style:none;margin:0;padding:0}
${S} :where(a){color:inherit;text-decoration:inherit}
${S} :where(b,strong){font-weight:bolder}
${S} :where(code,kbd,pre,samp){font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:1em}
${S} :where(table){text-indent:0;border-color:inherit;border-collapse:collapse}
${S} :where(button,input,optgroup,select,textarea){font:inherit;color:inherit;margin:0;padding:0;background:transparent;letter-spacing:inherit}
${S} :where(button,[role=button],select,summary){cursor:pointer}
${S} :where(:disabled){cursor:default}
${S} :where(img,svg,video,canvas){display:block;vertical-align:middle}
${S} :where(img){max-width:100%;height:auto}
${S} :where(hr){height:0;color:inherit;border-top-width:1px}
${S} :where(input::placeholder,textarea::placeholder){color:var(--lmk-muted);opacity:.8}
${S} :where(textarea){resize:vertical}
${S} :where(.lmk-card){display:block;border:1px solid var(--lmk-border);border-radius:12px;background:var(--lmk-bg);color:var(--lmk-fg);box-shadow:0 1px 2px rgb(0 0 0/.05)}
${S} :where(.lmk-card-header){display:flex;flex-direction:column;gap:6px;padding:18px 18px 0}
${S} :where(.lmk-card-title){font-size:17px;font-weight:600;line-height:1.25;letter-spacing:-.01em}
${S} :where(.lmk-card-description){font-size:13.5px;color:var(--lmk-muted)}
${S} :where(.lmk-card-content){padding:18px}
${S} :where(.lmk-card-header + .lmk-card-content){padding-top:14px}
${S} :where(.lmk-card-footer){display:flex;align-items:center;gap:8px;padding:0 18px 18px}
${S} :where(.lmk-button){display:inline-flex;align-items:center;justify-content:center;gap:8px;white-space:nowrap;border-radius:var(--lmk-radius);font-size:14px;font-weight:500;height:36px;padding:0 16px;border:1px solid transparent;background:var(--lmk-primary);color:var(--lmk-primary-fg);transition:background-color .15s,opacity .15s}
${S} :where(.lmk-button:hover){opacity:.9}
${S} :where(.lmk-button:focus-visible,.lmk-input:focus-visible,.lmk-select:focus-visible,.lmk-checkbox:focus-visible,.lmk-switch:focus-visible,.lmk-tabs-trigger:focus-visible,.lmk-slider:focus-visible){outline:2px solid var(--lmk-accent);outline-offset:2px}
${S} :where(.lmk-button:disabled){opacity:.5;pointer-events:none}
${S} :where(.lmk-button[data-variant=destructive]){background:var(--lmk-danger);color:#fff}
${S} :where(.lmk-button[data-variant=outline]){background:var(--lmk-bg);color:var(--lmk-fg);border-color:var(--lmk-border)}
${S} :where(.lmk-button[data-variant=outline]:hover,.lmk-button[data-variant=ghost]:hover){background:var(--lmk-subtle);opacity:1}
${S} :where(.lmk-button[data-variant=secondary]){background:var(--lmk-subtle);color:var(--lmk-fg)}
${S} :where(.lmk-button[data-variant=ghost]){background:transparent;color:var(--lmk-fg)}
${S} :where(.lmk-button[data-variant=link]){background:transparent;color:var(--lmk-accent);text-decoration:underline;text-underline-offset:4px;padding:0 4px}
${S} :where(.lmk-button[data-size=sm]){height:32px;padding:0 12px;font-size:13px}
${S} :where(.lmk-button[data-size=lg]){height:40px;padding:0 24px}
${S} :where(.lmk-button[data-size=icon]){height:36px;width:36px;padding:0}
${S} :where(.lmk-input,.lmk-select){display:flex;width:100%;height:36px;border:1px solid var(--lmk-border);border-radius:var(--lmk-radius);padding:4px 12px;background:transparent;font-size:14px}
${S} :where(textarea.lmk-input){height:auto;min-height:72px;padding:8px 12px}
${S} :where(.lmk-input:disabled,.lmk-select:disabled){opacity:.55;cursor:not-allowed}
${S} :where([aria-invalid=true].lmk-input,[aria-invalid=true].lmk-select,[aria-invalid=true].lmk-checkbox){border-color:var(--lmk-danger)}
${S} :where(.lmk-label){font-size:14px;font-weight:500;line-height:1.2}
${S} :where(.lmk-checkbox){display:inline-flex;align-items:center;justify-content:center;flex:none;width:16px;height:16px;border:1px solid var(--lmk-primary);border-radius:4px;background:transparent;color:var(--lmk-primary-fg);padding:0;vertical-align:middle}
${S} :where(.lmk-checkbox[aria-checked=true]){background:var(--lmk-primary)}
${S} :where(.lmk-checkbox:disabled,.lmk-switch:disabled){opacity:.5;cursor:not-allowed}
${S} :where(.lmk-switch){display:inline-flex;align-items:center;flex:none;width:36px;height:20px;border-radius:999px;background:var(--lmk-border);padding:2px;transition:background-color .15s;vertical-align:middle}
${S} :where(.lmk-switch[aria-checked=true]){background:var(--lmk-primary)}
${S} :where(.lmk-switch-thumb){display:block;width:16px;height:16px;border-radius:999px;background:var(--lmk-bg);box-shadow:0 1px 2px rgb(0 0 0/.2);transition:transform .15s}
${S} :where(.lmk-switch[aria-checked=true] .lmk-switch-thumb){transform:translateX(16px)}
${S} :where(.lmk-slider){display:block;width:100%;accent-color:var(--lmk-primary)}
${S} :where(.lmk-badge){display:inline-flex;align-items:center;white-space:nowrap;flex-shrink:0;border-radius:999px;border:1px solid transparent;padding:1px 10px;font-size:12px;font-weight:600;background:var(--lmk-primary);color:var(--lmk-primary-fg)}
${S} :where(.lmk-badge[data-variant=secondary]){background:var(--lmk-subtle);color:var(--lmk-fg)}
${S} :where(.lmk-badge[data-variant=destructive]){background:var(--lmk-danger);color:#fff}
${S} :where(.lmk-badge[data-variant=outline]){background:transparent;color:var(--lmk-fg);border-color:var(--lmk-border)}
${S} :where(.lmk-alert){position:relative;width:100%;border:1px solid var(--lmk-border);border-radius:var(--lmk-radius);padding:12px 16px;display:grid;gap:2px}
${S} :where(.lmk-alert:has(> svg)){grid-template-columns:16px 1fr;column-gap:12px}
${S} :where(.lmk-alert > svg){width:16px;height:16px;margin-top:2px}
${S} :where(.lmk-alert:has(> svg) > :not(svg)){grid-column:2}
${S} :where(.lmk-alert[data-variant=destructive]){color:var(--lmk-danger);border-color:color-mix(in srgb,var(--lmk-danger) 50%,transparent)}
${S} :where(.lmk-alert-title){font-weight:600;line-height:1.3}
${S} :where(.lmk-alert-description){font-size:13.5px;color:var(--lmk-muted)}
${S} :where(.lmk-progress){position:relative;width:100%;height:8px;overflow:hidden;border-radius:999px;background:var(--lmk-subtle)}
${S} :where(.lmk-progress-indicator){height:100%;background:var(--lmk-primary);transition:width .3s}
@keyframes lm-mount-kit-pulse{50%{opacity:.5}}
${S} :where(.lmk-skeleton){display:block;min-height:16px;border-radius:var(--lmk-radius);background:var(--lmk-subtle);animation:lm-mount-kit-pulse 2s cubic-bezier(.4,0,.6,1) infinite}
${S} :where(.lmk-separator){flex:none;background:var(--lmk-border);height:1px;width:100%;margin:8px 0}
${S} :where(.lmk-separator[data-orientation=vertical]){height:auto;width:1px;align-self:stretch;margin:0 8px}
${S} :where(.lmk-tabs-list){display:inline-flex;align-items:center;gap:2px;border-radius:var(--lmk-radius);background:var(--lmk-subtle);padding:3px}
${S} :where(.lmk-tabs-trigger){display:inline-flex;align-items:center;justify-content:center;white-space:nowrap;border-radius:6px;padding:4px 12px;font-size:14px;font-weight:500;color:var(--lmk-muted)}
${S} :where(.lmk-tabs-trigger[aria-selected=true]){background:var(--lmk-bg);color:var(--lmk-fg);box-shadow:0 1px 2px rgb(0 0 0/.08)}
${S} :where(.lmk-tabs-content){margin-top:8px}
${S} :where(.lmk-table-wrap){position:relative;width:100%;overflow:auto}
${S} :where(.lmk-table){width:100%;caption-side:bottom;font-size:14px;border-collapse:collapse}
${S} :where(.lmk-table-row){border-bottom:1px solid var(--lmk-border)}
${S} :where(.lmk-table-body .lmk-table-row:last-child){border-bottom:0}
${S} :where(.lmk-table-head){height:40px;padding:0 8px;text-align:left;vertical-align:middle;font-weight:500;color:var(--lmk-muted)}
${S} :where(.lmk-table-cell){padding:8px;vertical-align:middle}
${S} :where(.lmk-table-caption){margin-top:12px;font-size:13px;color:var(--lmk-muted)}
${S} :where(.lmk-icon){display:inline-block;vertical-align:middle;flex:none}
${S} :where(.lmk-field-error){display:block;color:var(--lmk-danger);font-size:12.5px;margin-top:4px}
${S} :where(.lmk-form-errors){color:var(--lmk-danger);font-size:13px;margin:8px 0;border:1px solid color-mix(in srgb,var(--lmk-danger) 40%,transparent);border-radius:var(--lmk-radius);padding:8px 12px}
${S} :where(.lmk-form-answered){border:0;margin:0;padding:0;min-width:0;opacity:.7}
${S} :where(.lmk-form-answered__note){margin:8px 0 0;font-size:13px;color:var(--lmk-muted)}
${S} :where(.lmk-unknown){display:inline-block;border:1px dashed var(--lmk-danger);color:var(--lmk-danger);border-radius:4px;padding:1px 6px;font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
${S} :where(.lmk-chart-loading){display:block;width:100%;height:240px;border-radius:var(--lmk-radius);background:var(--lmk-subtle)}
${S} :where(.lmk-render-error){color:var(--lmk-danger);font-size:13px;white-space:pre-wrap;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
${S} :where(.lmk-paused){position:sticky;top:0;z-index:101;color:var(--lmk-danger);background:var(--lmk-subtle);border:1px solid var(--lmk-danger);border-radius:var(--lmk-radius);padding:4px 8px;margin:0 0 8px;font-size:13px}
${S} :where(.lmk-inert-bar){display:flex;align-items:center;justify-content:space-between;gap:8px;font-size:12px;color:var(--lmk-muted);margin:-4px 0 8px}
`;
