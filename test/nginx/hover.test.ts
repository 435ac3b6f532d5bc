// nginx hover: directive facts and description from @nginx/reference-lib, variables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nginxModule } from '../../server/src/languages/nginx/index';
import { fixture } from './helpers';

function hover(marked: string) {
  const f = fixture(marked);
  const h = nginxModule.hover(f.doc, nginxModule.parse(f.text), f.cursor!, {});
  const value = h && typeof h.contents === 'object' && 'value' in h.contents ? h.contents.value : '';
  return { f, h, value };
}

test('directive hover: syntax, default, context, module link, description', () => {
  const { f, h, value } = hover('http {\n  gz<|>ip on;\n}\n');
  assert.ok(h);
  assert.equal(f.doc.getText(h!.range!), 'gzip');
  assert.match(value, /gzip on \| off;/);
  assert.match(value, /\*\*Default:\*\* `gzip off;`/);
  assert.match(value, /`http`, `if in location`, `location`, `server`/);
  assert.match(value, /https:\/\/nginx\.org\/en\/docs\/http\/ngx_http_gzip_module\.html#gzip/);
  assert.match(value, /Enables or disables gzipping of responses/);
});

test('appeared-in version is shown', () => {
  assert.match(hover('http { server { ht<|>tp2 on; } }').value, /\*\*Versions:\*\* since 1\.25\.1/);
});

test('stream and http variants: the one for the context', () => {
  const s = hover('stream { server { proxy_pa<|>ss 127.0.0.1:1; } }').value;
  assert.match(s, /ngx_stream_proxy_module/);
  assert.doesNotMatch(s, /ngx_http_proxy_module/);
  const h = hover('http { server { location / { proxy_pa<|>ss http://a; } } }').value;
  assert.match(h, /ngx_http_proxy_module/);
});

test('variable hover: built-in, prefix, user-defined', () => {
  assert.match(hover('http { server { return 200 $ho<|>st; } }').value, /\$host\*\* — ngx_http_core_module/);
  assert.match(hover('http { server { return 200 $http_x_<|>a; } }').value, /\$http_<name>/);
  assert.match(hover('http { server { set $mine 1; return 200 $mi<|>ne; } }').value, /defined in this file/);
});

test('no hover on arguments, comments, unknown names', () => {
  assert.equal(hover('http { gzip o<|>n; }').h, null);
  assert.equal(hover('# gz<|>ip\n').h, null);
  assert.equal(hover('http { frob<|>nicate 1; }').h, null);
});

test('obsolete directives say since when and what replaces them', () => {
  assert.match(
    hover('http { server { http2_idle_<|>timeout 1m; } }').value,
    /\*\*Versions:\*\* since 1\.9\.5; obsolete since 1\.19\.7 \(use `keepalive_timeout`\)/,
  );
});

test('hover leads with the facts: the description is cut to its first paragraph, the rest behind the link', () => {
  const { value } = hover('http { server { location / { proxy_pa<|>ss http://a; } } }');
  const at = (re: RegExp) => value.search(re);
  // syntax, default/context/versions/module, then the description, then the link
  assert.ok(at(/proxy_pass URL;/) < at(/\*\*Context:\*\*/));
  assert.ok(at(/\*\*Context:\*\*/) < at(/Sets the protocol and address of a proxied server/));
  assert.ok(
    at(/Sets the protocol/) <
      at(/\[More in the nginx reference\]\(https:\/\/nginx\.org\/en\/docs\/http\/ngx_http_proxy_module\.html#proxy_pass\)/),
  );
  // the later paragraphs of the reference page are not in the hover
  assert.doesNotMatch(value, /round-robin fashion/);
  assert.doesNotMatch(value, /Parameter value can contain variables/);
  assert.ok(value.length < 1200, `short hover: ${value.length} characters`);
});

test('removed directives say in which version', () => {
  const v = hover('http { server { ss<|>l on; } }').value;
  assert.match(v, /\*\*Versions:\*\*[^\n]*removed in 1\.25\.1/);
});
