-- Drives the Proxy Tuner language server with Neovim's own LSP client (0.7+), headless:
--   nvim --headless --clean -u NONE -c "luafile lsp-client.lua" FILE
-- Parameters come from the environment (PT_*), the observations go as JSON to PT_OUT.
-- The script always ends Neovim itself: `qall!` after writing, `cquit! 3` on a Lua error.

local function env_num(name)
  local v = os.getenv(name)
  return v and tonumber(v) or nil
end

local out_path = assert(os.getenv('PT_OUT'), 'PT_OUT is not set')
local server = assert(os.getenv('PT_SERVER'), 'PT_SERVER is not set')
local node = os.getenv('PT_NODE') or 'node'
local timeout = env_num('PT_TIMEOUT_MS') or 10000

local result = { log = {} }

local function log(msg)
  table.insert(result.log, msg)
end

local function write_result()
  local f = assert(io.open(out_path, 'w'))
  f:write(vim.fn.json_encode(result))
  f:close()
end

local function run()
  local buf = vim.api.nvim_get_current_buf()
  local filetype = os.getenv('PT_FILETYPE')
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  result.filetype = vim.bo[buf].filetype

  local published = {}
  -- cold start: from starting the server to its first diagnostics (scripts/bench-editors.mjs)
  local t0 = vim.loop.hrtime()
  local client_id = vim.lsp.start_client({
    name = 'proxy-tuner',
    cmd = { node, server, '--stdio' },
    root_dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':h'),
    handlers = {
      ['textDocument/publishDiagnostics'] = function(err, params, ctx, config)
        if result.first_diagnostics_ms == nil then
          result.first_diagnostics_ms = (vim.loop.hrtime() - t0) / 1e6
        end
        table.insert(published, params)
        return vim.lsp.diagnostic.on_publish_diagnostics(err, params, ctx, config)
      end,
      ['window/logMessage'] = function(_, params)
        log('server: ' .. tostring(params and params.message))
      end,
    },
  })
  if not client_id then
    error('start_client failed')
  end
  vim.lsp.buf_attach_client(buf, client_id)
  local uri = vim.uri_from_bufnr(buf)

  local function published_for(version)
    for i = #published, 1, -1 do
      local p = published[i]
      if p.uri == uri and (version == nil or p.version == version) then
        return p
      end
    end
    return nil
  end

  -- 1. Diagnostics after the open, as the server sent them and as Neovim stored them.
  local got = vim.wait(timeout, function() return published_for(nil) ~= nil end, 20)
  result.initialized = vim.lsp.get_client_by_id(client_id) ~= nil and vim.lsp.get_client_by_id(client_id).initialized
  if not got then
    error('no publishDiagnostics within ' .. timeout .. ' ms')
  end
  local first = published_for(nil)
  result.published = first.diagnostics
  result.stored = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(result.stored, { lnum = d.lnum, col = d.col, severity = d.severity, message = d.message, code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) })
  end

  local function request(method, params)
    local responses, err = vim.lsp.buf_request_sync(buf, method, params, timeout)
    if not responses then
      return { error = tostring(err) }
    end
    local r = responses[client_id]
    if not r then
      return { error = 'no response from the client' }
    end
    if r.err then
      return { error = r.err.message or vim.inspect(r.err) }
    end
    return { result = r.result == nil and vim.NIL or r.result }
  end

  -- 2. Completion and hover at the positions the test asked for.
  local cl, cc = env_num('PT_COMPLETION_LINE'), env_num('PT_COMPLETION_CHAR')
  if cl then
    result.completion = request('textDocument/completion', {
      textDocument = { uri = uri },
      position = { line = cl, character = cc },
      context = { triggerKind = 1 },
    })
  end
  local hl, hc = env_num('PT_HOVER_LINE'), env_num('PT_HOVER_CHAR')
  if hl then
    result.hover = request('textDocument/hover', { textDocument = { uri = uri }, position = { line = hl, character = hc } })
  end

  -- 2b. Signature help at PT_SIG_*, inlay hints over the whole buffer.
  local sl, sc = env_num('PT_SIG_LINE'), env_num('PT_SIG_CHAR')
  if sl then
    result.signature = request('textDocument/signatureHelp', { textDocument = { uri = uri }, position = { line = sl, character = sc } })
    result.inlay_hints = request('textDocument/inlayHint', {
      textDocument = { uri = uri },
      range = { start = { line = 0, character = 0 }, ['end'] = { line = vim.api.nvim_buf_line_count(buf), character = 0 } },
    })
  end

  -- 3. Code actions for the diagnostic with code PT_ACTION_CODE (else the first one).
  local wanted = os.getenv('PT_ACTION_CODE')
  local d = first.diagnostics[1]
  for _, x in ipairs(first.diagnostics) do
    if x.code == wanted then
      d = x
      break
    end
  end
  if d then
    result.code_actions = request('textDocument/codeAction', {
      textDocument = { uri = uri },
      range = d.range,
      context = { diagnostics = { d } },
    })
  end

  -- 4. An edit through Neovim's incremental sync: replace one line, wait for the new version.
  local edit_line = env_num('PT_EDIT_LINE')
  local edit_text = os.getenv('PT_EDIT_TEXT')
  if edit_line and edit_text then
    local before = #published
    vim.api.nvim_buf_set_lines(buf, edit_line, edit_line + 1, false, { edit_text })
    local version = vim.lsp.util.buf_versions[buf]
    result.edit_version = version
    local ok = vim.wait(timeout, function()
      for i = before + 1, #published do
        if published[i].uri == uri and (published[i].version == nil or published[i].version >= version) then
          return true
        end
      end
      return false
    end, 20)
    result.after_edit = ok and published[#published].diagnostics or vim.NIL
    result.buffer_after_edit = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  end

  -- 5. Stop the server and wait for it to go.
  vim.lsp.stop_client(client_id)
  result.stopped = vim.wait(timeout, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
end

local ok, err = pcall(run)
if not ok then
  result.error = tostring(err)
end
local wrote, werr = pcall(write_result)
if not wrote then
  io.stderr:write('could not write ' .. out_path .. ': ' .. tostring(werr) .. '\n')
  vim.cmd('cquit! 3')
end
if ok then
  vim.cmd('qall!')
else
  vim.cmd('cquit! 4')
end
