import { createHash } from 'node:crypto';

/**
 * The panel's only script: reveals the copy buttons next to a one-time secret and copies on click.
 * Without JavaScript the buttons stay hidden and the secret is selected and copied by hand.
 * Allowed by its hash in the CSP (no 'unsafe-inline').
 */
export const COPY_SCRIPT = `
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  var field = document.getElementById(button.getAttribute('data-copy'));
  var status = document.getElementById(button.getAttribute('data-status'));
  if (!field || !status) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    field.focus();
    field.select();
    var done = function () { status.textContent = 'Copied to the clipboard.'; };
    var failed = function () { status.textContent = 'Could not copy: the text is selected, press Ctrl+C (or Cmd+C).'; };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(field.value).then(done, failed);
    else if (document.execCommand('copy')) done();
    else failed();
  });
});
`;

export const COPY_SCRIPT_HASH = `'sha256-${createHash('sha256').update(COPY_SCRIPT).digest('base64')}'`;
