/** The panel's only stylesheet, served at /panel/assets/panel.css (no build step, no inline styles). */
export const PANEL_STYLESHEET = `
*, *::before, *::after { box-sizing: border-box; }
html { font-size: 100%; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; color: #1b1f24; background: #f4f6f8; }
a { color: #1d4ed8; }
a:hover { color: #1e3a8a; }
:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
.skip-link { position: absolute; left: 1rem; top: -4rem; background: #fff; color: #1d4ed8; padding: .5rem 1rem; border: 2px solid #1d4ed8; border-radius: 4px; z-index: 10; }
.skip-link:focus { top: 1rem; }
.site-header { background: #0f172a; color: #f8fafc; padding: .75rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; }
.site-header a { color: #f8fafc; }
.brand { margin: 0; font-weight: 700; }
.brand a { text-decoration: none; }
.site-nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
.site-nav a { text-decoration: none; padding: .25rem 0; border-bottom: 2px solid transparent; }
.site-nav a[aria-current="page"] { border-bottom-color: #93c5fd; font-weight: 600; }
.who { margin-left: auto; display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; font-size: .9rem; }
.who form { margin: 0; }
.banner { background: #fef3c7; border-bottom: 3px solid #b45309; color: #451a03; padding: .75rem 1rem; }
.banner p { margin: 0; max-width: 72rem; margin-inline: auto; }
main { display: block; max-width: 72rem; margin: 0 auto; padding: 1rem; }
main:focus { outline: none; }
.narrow { max-width: 30rem; margin: 2rem auto; background: #fff; padding: 1.5rem; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .75rem; }
.breadcrumb { font-size: .9rem; margin: 0; color: #4b5563; }
.card { background: #fff; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.15); padding: 1rem 1.25rem; margin-bottom: 1rem; }
.flash:empty { display: none; }
.notice { border-left: 4px solid #15803d; background: #f0fdf4; padding: .5rem 1rem; margin: 0 0 1rem; }
.notice.error { border-left-color: #b42318; background: #fef2f2; }
.errors { border: 2px solid #b42318; border-radius: 4px; padding: .5rem 1rem; color: #7a1a12; background: #fff; margin-bottom: 1rem; }
.warning { border: 2px solid #b45309; background: #fffbeb; border-radius: 4px; padding: .75rem 1rem; }
label, legend { display: block; font-weight: 600; margin-top: 1rem; }
fieldset { border: 1px solid #cbd5e1; border-radius: 4px; margin: 1rem 0 0; padding: .5rem 1rem 1rem; }
fieldset label { font-weight: 400; margin-top: .25rem; display: flex; gap: .5rem; align-items: center; }
.checkbox-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: 0 1rem; }
input[type="text"], input[type="email"], input[type="password"], input[type="url"], input[type="datetime-local"], textarea { display: block; width: 100%; font: inherit; padding: .5rem; margin-top: .25rem; border: 1px solid #6b7280; border-radius: 4px; background: #fff; }
input[type="checkbox"] { width: 1.15rem; height: 1.15rem; }
[aria-invalid="true"] { border-color: #b42318; }
.hint { color: #4b5563; font-size: .9rem; margin: .25rem 0 0; }
.field-error { color: #b42318; font-size: .9rem; margin: .25rem 0 0; font-weight: 600; }
button, .button { display: inline-block; font: inherit; font-size: 1rem; padding: .55rem 1.1rem; border-radius: 4px; border: 2px solid #1d4ed8; background: #1d4ed8; color: #fff; cursor: pointer; text-decoration: none; line-height: 1.3; }
.button:hover, button:hover { background: #1e40af; color: #fff; }
button.secondary, .button.secondary { background: #fff; color: #1d4ed8; }
button.danger { background: #b42318; border-color: #b42318; }
button.link { background: none; border: none; color: inherit; text-decoration: underline; padding: 0; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin-top: 1.25rem; }
.actions form { margin: 0; }
.inline { display: inline; margin: 0; }
.with-reason { margin: 0 0 .5rem; }
.with-reason .reason { max-width: 40rem; }
dl.summary { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .4rem 1rem; margin: 0; }
dl.summary dt { font-weight: 600; }
dl.summary dd { margin: 0; overflow-wrap: anywhere; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; overflow-wrap: anywhere; }
.status { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .85rem; font-weight: 600; border: 1px solid currentColor; }
.status.ok { color: #166534; }
.status.bad { color: #b42318; }
.status.muted { color: #4b5563; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; background: #fff; }
caption { text-align: left; font-weight: 600; padding: .5rem 0; }
th, td { text-align: left; vertical-align: top; padding: .5rem .6rem; border-bottom: 1px solid #e2e8f0; }
th { background: #f1f5f9; font-size: .9rem; }
td ul { margin: 0; padding-left: 1rem; }
.nowrap, .nowrap code { white-space: nowrap; overflow-wrap: normal; }
.secret-row { display: flex; gap: .5rem; align-items: stretch; flex-wrap: wrap; }
.secret-row input { flex: 1 1 18rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; margin-top: 0; }
.empty { color: #4b5563; font-style: italic; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.plain-list { list-style: none; padding: 0; margin: 0; }
.plain-list h2 { margin-top: 0; }
.health-figure { margin: .5rem 0; background: #fff; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.15); padding: .5rem; }
.health-chart { display: block; width: 100%; height: auto; }
.health-details summary { cursor: pointer; color: #1d4ed8; text-decoration: underline; padding: .25rem 0; }
.success-rate { white-space: nowrap; font-weight: 600; }
.success-rate.ok { color: #166534; }
.success-rate.bad { color: #b42318; }
.success-rate.muted { color: #4b5563; font-weight: 400; font-style: italic; }
.time-row { display: flex; align-items: center; gap: .5rem; max-width: 22rem; }
.time-row input { flex: 1 1 auto; }
.time-row .zone { font-weight: 600; margin-top: .25rem; }
.presets ul { list-style: none; display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; padding: 0; margin: .75rem 0 0; }
.presets a[aria-current="true"] { font-weight: 700; }
.preview { border-left: 4px solid #1d4ed8; background: #eff6ff; padding: .5rem 1rem; margin: 1rem 0 0; }
.filter-fields { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: 0 1rem; }
select, input[type="datetime-local"] { display: block; width: 100%; font: inherit; padding: .45rem; margin-top: .25rem; border: 1px solid #6b7280; border-radius: 4px; background: #fff; }
.pager ul { list-style: none; display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; padding: 0; margin: 1rem 0; }
.pager a { display: inline-block; padding: .35rem 0; }
pre.payload { background: #0f172a; color: #f8fafc; padding: 1rem; border-radius: 6px; overflow: auto; max-height: 32rem; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.payload code { font-size: .85rem; }
footer { max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #4b5563; font-size: .85rem; }
@media (max-width: 48rem) {
  .who { margin-left: 0; }
  dl.summary { grid-template-columns: 1fr; }
  dl.summary dd { margin-bottom: .5rem; }
  table.responsive thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.responsive tr { display: block; border-bottom: 2px solid #cbd5e1; padding: .25rem 0; }
  table.responsive td { display: block; position: relative; border: none; padding: .25rem .6rem .25rem 9.5rem; min-height: 2rem; }
  table.responsive td::before { content: attr(data-label); position: absolute; left: .6rem; width: 8.5rem; font-weight: 600; }
}
@media (prefers-reduced-motion: reduce) { * { transition: none !important; } }
`;
