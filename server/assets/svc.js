// svc: what pages do with JavaScript on. Live updates through the sockets, forms that
// write through the JSON API (the session cookie and this page's Origin go along), and
// relative times. Pages read without it. Text from the server goes in as text, never HTML.
'use strict';

(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const wsUrl = (path) => (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + path;

  // "5 minutes ago" for every <time datetime>, refreshed each minute.
  const ago = (iso) => {
    const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
    if (!Number.isFinite(s)) return null;
    if (s < 45) return 'just now';
    const units = [['year', 31536000], ['month', 2592000], ['day', 86400], ['hour', 3600], ['minute', 60]];
    for (const [name, size] of units) {
      const n = Math.round(s / size);
      if (n >= 1 && s >= size * 0.75) return n + ' ' + name + (n === 1 ? '' : 's') + ' ago';
    }
    return 'just now';
  };
  const relativeTimes = () => $$('time[datetime]').forEach((t) => {
    const text = ago(t.getAttribute('datetime'));
    if (text) { t.title = t.title || t.textContent; t.textContent = text; }
  });

  // JSON API calls from forms: method and path from data-method / data-path (or the
  // form's own), fields as JSON; the answer's error message shown in the form.
  async function api(method, path, body) {
    const r = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
    let json = null;
    try { json = await r.json(); } catch (_) { /* no body */ }
    if (!r.ok) throw new Error(json && json.error ? json.error.message : r.status + ' ' + r.statusText);
    return json;
  }
  window.svcApi = api;

  const say = (form, text, bad) => {
    let out = $('.form-message', form);
    if (!out) {
      out = document.createElement('p');
      out.className = 'form-message';
      out.setAttribute('role', 'status');
      form.append(out);
    }
    out.textContent = text;
    out.classList.toggle('error-text', !!bad);
  };

  document.addEventListener('submit', async (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.api) return;
    e.preventDefault();
    if (form.dataset.api === 'signout') {
      try { await api('POST', '/v1/logout'); } catch (_) { /* signed out anyway */ }
      location.href = '/login';
      return;
    }
    const body = {};
    for (const [k, v] of new FormData(form)) {
      if (typeof v !== 'string') continue;
      const input = form.elements[k];
      if (input && input.dataset && input.dataset.type === 'bool') body[k] = v === 'true';
      else if (input && input.dataset && input.dataset.type === 'number') body[k] = Number(v);
      else body[k] = v;
    }
    const buttons = $$('button', form);
    buttons.forEach((b) => { b.disabled = true; });
    try {
      const answer = await api(form.dataset.method || 'POST', form.dataset.path || form.action, body);
      form.dispatchEvent(new CustomEvent('svc:done', { detail: answer, bubbles: true }));
      if (form.dataset.then === 'reload') location.reload();
      else if (form.dataset.then) location.href = form.dataset.then;
      else say(form, 'Done.');
    } catch (err) {
      say(form, err.message, true);
    } finally {
      buttons.forEach((b) => { b.disabled = false; });
    }
  });

  // Replaces the named sections with those of a fresh copy of this page: for changes
  // a frame only announces (the needs-you list, a summary, a monorepo joined or left).
  async function refresh(ids) {
    const r = await fetch(location.href, { credentials: 'same-origin' });
    if (!r.ok) return;
    const fresh = new DOMParser().parseFromString(await r.text(), 'text/html');
    for (const id of ids) {
      const now = document.getElementById(id);
      const next = fresh.getElementById(id);
      if (now && next) now.replaceWith(document.adoptNode(next));
    }
    relativeTimes();
  }
  window.svcRefresh = refresh;

  // The home: the person's activity socket. Lines are placed by their display key
  // (at, monorepo, seq), newest first, and replaced by (monorepo_id, seq).
  function personSocket() {
    const list = $('#activity');
    if (!list) return;
    let landed = Number(sessionStorage.getItem('svc.landed') || 0) || undefined;
    let delay = 1000;
    const key = (li) => [li.dataset.at, li.dataset.monorepo, Number(li.dataset.seq)];
    const newer = (a, b) => (a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] > b[2]);
    const place = (event) => {
      const id = event.monorepo_id + '/' + event.seq;
      const li = document.createElement('li');
      li.dataset.key = id;
      li.dataset.at = new Date(event.at).toISOString();
      li.dataset.monorepo = event.monorepo;
      li.dataset.seq = String(event.seq);
      const a = document.createElement('a');
      a.textContent = lineText(event);
      a.href = event.repo && event.branch && event.kind !== 'branch.deleted'
        ? '/' + event.monorepo + '/-/' + encodeURIComponent(event.repo) + '/branches/' + encodeURIComponent(event.branch)
        : '/' + event.monorepo;
      const where = document.createElement('span');
      where.className = 'where';
      where.textContent = event.monorepo;
      const t = document.createElement('time');
      t.setAttribute('datetime', li.dataset.at);
      t.textContent = li.dataset.at;
      li.append(a, ' ', where, ' ', t);
      const old = $$('li', list).find((x) => x.dataset.key === id);
      if (old) { old.replaceWith(li); } else {
        const empty = $('.empty', list);
        if (empty) empty.remove();
        const after = $$('li[data-key]', list).find((x) => newer(key(li), key(x)));
        list.insertBefore(li, after || null);
      }
      relativeTimes();
    };
    const connect = () => {
      const ws = new WebSocket(wsUrl('/v1/events'));
      ws.onopen = () => {
        delay = 1000;
        ws.send(JSON.stringify(landed === undefined ? { type: 'hello' } : { type: 'hello', since: landed }));
      };
      ws.onmessage = (m) => {
        if (m.data === 'pong') return;
        const f = JSON.parse(m.data);
        if (typeof f.landed === 'number' && (landed === undefined || f.landed > landed)) {
          landed = f.landed;
          sessionStorage.setItem('svc.landed', String(landed));
        }
        if (f.type === 'event') place(f.event);
        else if (f.type === 'needs') refresh(['needs', 'monorepos']);
        else if (f.type === 'summary') refresh(['monorepos']);
        else if (f.type === 'joined' || f.type === 'left' || f.type === 'resync') refresh(['activity', 'needs', 'monorepos']);
      };
      ws.onclose = (e) => {
        if (e.code === 4403) return;
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      };
    };
    connect();
  }

  function lineText(e) {
    const who = e.actor || 'someone';
    const on = e.repo ? (e.branch ? e.repo + ':' + e.branch : e.repo) : '';
    switch (e.kind) {
      case 'push': return who + ' pushed ' + (e.commits === 1 ? '1 commit' : e.commits != null ? e.commits + ' commits' : '') + ' to ' + on;
      case 'branch.opened': return who + ' opened ' + on;
      case 'branch.deleted': return who + ' deleted ' + on;
      case 'merged': return who + ' merged ' + on;
      case 'review': return e.state === 'approve' ? who + ' approved ' + on
        : e.state === 'request_changes' ? who + ' asked for changes on ' + on : who + ' commented on ' + on;
      case 'status': return (e.context || 'a check') + ' is ' + (e.state || 'set') + ' on ' + on;
      case 'worktree.reported': return who + ' started a worktree of ' + on;
      case 'worktree.removed': return who + ' removed a worktree of ' + on;
      case 'meta.saved': return who + ' saved ' + (e.path || 'a meta file');
      default: return who + ': ' + e.kind + ' ' + on;
    }
  }

  // Other pages of a monorepo: its event socket; a page names the events that change it
  // (data-refresh-on="push,merged") and the sections to refresh (data-refresh="id,id").
  function monorepoSocket() {
    const label = document.body.dataset.monorepo;
    const page = $('[data-refresh-on]');
    if (!label || !page) return;
    const kinds = page.dataset.refreshOn.split(',');
    const ids = (page.dataset.refresh || 'main').split(',');
    let delay = 1000;
    const connect = () => {
      const ws = new WebSocket(wsUrl('/v1/monorepos/' + label + '/events'));
      let caught = false;
      ws.onmessage = (m) => {
        if (m.data === 'pong') return;
        const f = JSON.parse(m.data);
        if (f.type === 'caught_up') { caught = true; delay = 1000; }
        else if (f.type === 'event' && caught && kinds.includes(f.kind)) refresh(ids);
      };
      ws.onclose = (e) => {
        if (e.code === 4403 || e.code === 4404) return;
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      };
    };
    connect();
  }

  document.addEventListener('DOMContentLoaded', () => {
    relativeTimes();
    setInterval(relativeTimes, 60000);
    if ($('[data-live="person"]')) personSocket();
    monorepoSocket();
  });
})();
