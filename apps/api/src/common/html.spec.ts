import { escapeHtml, html, Html } from './html';

describe('html', () => {
  it('escapes interpolated strings and keeps nested markup', () => {
    const name = '<script>alert("x")</script> & \'co\'';
    const out = html`<p>${name}</p>${html`<b>${'ok'}</b>`}${[html`<i>1</i>`, html`<i>2</i>`]}${null}`;
    expect(out).toBeInstanceOf(Html);
    expect(out.value).toBe('<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</p><b>ok</b><i>1</i><i>2</i>');
  });

  it('escapes attribute breakers', () => {
    expect(escapeHtml('" onfocus="x')).toBe('&quot; onfocus=&quot;x');
  });
});
