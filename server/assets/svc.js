// svc: what pages do with JavaScript on. Live updates through the sockets, forms that
// write through the JSON API (the session cookie and this page's Origin go along), and
// relative times. Pages read without it. Text from the server goes in as text, never HTML.
'use strict';

(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const wsUrl = (path) => (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + path;

  // "5 minutes ago" (or "in 5 minutes", for a time to come) for every <time datetime>,
  // refreshed each minute.
  const ago = (iso) => {
    const d = Math.round((Date.now() - Date.parse(iso)) / 1000);
    if (!Number.isFinite(d)) return null;
    const s = Math.abs(d);
    if (s < 45) return 'just now';
    const units = [['year', 31536000], ['month', 2592000], ['day', 86400], ['hour', 3600], ['minute', 60]];
    for (const [name, size] of units) {
      const n = Math.round(s / size);
      const text = n + ' ' + name + (n === 1 ? '' : 's');
      if (n >= 1 && s >= size * 0.75) return d < 0 ? 'in ' + text : text + ' ago';
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
  // Answers are applied in the order their fetches started: one overtaken by a later
  // fetch is dropped, so an older copy of the page never replaces a newer one.
  let asked = 0;
  let applied = 0;
  async function refresh(ids) {
    const mine = ++asked;
    const r = await fetch(location.href, { credentials: 'same-origin' });
    if (!r.ok) return;
    const text = await r.text();
    if (mine < applied) return;
    applied = mine;
    const fresh = new DOMParser().parseFromString(text, 'text/html');
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
    // A large monorepo's lines come from its own socket (topic feed): at most 5 such
    // sockets; the home refreshes its activity every 60 s for the others.
    const feeds = new Map();
    let polled = null;
    const large = (label) => {
      if (feeds.has(label)) return;
      if (feeds.size >= 5) {
        polled = polled || setInterval(() => refresh(['activity']), 60000);
        return;
      }
      let since;
      let wait = 1000;
      const open = () => {
        const q = since === undefined ? '' : '&feed_since=' + since;
        const ws = new WebSocket(wsUrl('/v1/monorepos/' + label + '/events?topics=feed' + q));
        feeds.set(label, ws);
        ws.onmessage = (m) => {
          if (m.data === 'pong') return;
          const f = JSON.parse(m.data);
          if (f.type === 'feed') { since = f.n; wait = 1000; place(f.event); }
          else if (f.type === 'caught_up' && typeof f.feed_n === 'number') since = f.feed_n;
          else if (f.type === 'feed_resync') { since = f.feed_n; refresh(['activity']); }
        };
        ws.onclose = (e) => {
          if (e.code === 4403 || e.code === 4404) { feeds.delete(label); return; }
          setTimeout(open, wait);
          wait = Math.min(wait * 2, 30000);
        };
      };
      open();
    };
    let caught = false;
    const connect = () => {
      const ws = new WebSocket(wsUrl('/v1/events'));
      caught = false;
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
        else if (f.type === 'caught_up') caught = true;
        else if (f.type === 'needs') refresh(['needs', 'monorepos']);
        else if (f.type === 'summary') refresh(['monorepos']);
        else if (f.type === 'joined') {
          if (f.large) large(f.monorepo);
          if (caught) refresh(['activity', 'needs', 'monorepos']);
        } else if (f.type === 'left' || f.type === 'resync') refresh(['activity', 'needs', 'monorepos']);
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
      case 'branch.opened': return who + ' opened ' + on + (e.commits > 0 ? ' with ' + e.commits + (e.commits === 1 ? ' commit' : ' commits') : '');
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

// Code browsing: a folder whose last commits are still being found asks again (a few
// times); a #L<n> link to a line outside the lines a file's page shows opens their page.
(() => {
  let tries = 0;
  const again = () => {
    const tree = document.querySelector('#tree[data-retry-ms]');
    if (!tree || !window.svcRefresh || tries >= 10) return;
    tries += 1;
    const ms = Math.min(Math.max(Number(tree.dataset.retryMs) || 1000, 250), 10000);
    setTimeout(() => { window.svcRefresh(['tree']).then(again, () => {}); }, ms);
  };
  again();
  const blob = document.getElementById('blob');
  const line = /^#L(\d+)$/.exec(location.hash);
  if (blob && line && !document.getElementById('L' + line[1])) {
    const n = Number(line[1]);
    if (n >= 1 && n <= Number(blob.dataset.lines)) {
      const url = new URL(location.href);
      url.searchParams.set('from', String(n));
      location.replace(url.toString());
    }
  }
})();

// Copy buttons: the field beside one (readonly, selectable and copied by hand without
// script) is copied through the clipboard; the button shows only with script.
(() => {
  document.querySelectorAll('button[data-copy]').forEach((button) => {
    const field = document.getElementById(button.dataset.copy);
    if (!field) return;
    const label = button.textContent;
    button.hidden = false;
    field.addEventListener('focus', () => field.select());
    button.addEventListener('click', async () => {
      field.select();
      let copied = false;
      try {
        if (navigator.clipboard) {
          await navigator.clipboard.writeText(field.value);
          copied = true;
        } else {
          copied = document.execCommand('copy');
        }
      } catch (_) { /* left selected, to copy by hand */ }
      button.textContent = copied ? 'Copied' : 'Press Ctrl+C';
      setTimeout(() => { button.textContent = label; }, 2000);
    });
  });
})();

// Issues and the artifact viewer. The new-issue form goes on to the new issue. An issue
// page refreshes on its own issue's events, toggles reactions and clears the comment form
// once sent. The artifact page starts threads (on a quote, taken from a selection in the
// framed document when the frame can be read) and refreshes its threads on their events,
// keeping replies being written. A page that says what it follows (`data-follow` on the
// body: the settings' members and labels, the CI builds) swaps its parts on their events.
(() => {
  const made = document.getElementById('new-issue');
  const issue = document.getElementById('issue');
  const art = document.getElementById('artifact');
  const followed = document.body.dataset.follow;
  if (!made && !issue && !art && !followed) return;

  const wsUrl = (path) => (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + path;
  const say = (form, text, bad) => {
    let out = form.querySelector('.form-message');
    if (!out) {
      out = document.createElement('p');
      out.className = 'form-message';
      out.setAttribute('role', 'status');
      form.append(out);
    }
    out.textContent = text;
    out.classList.toggle('error-text', !!bad);
  };
  // Calls `on` with each event of the monorepo's socket once caught up, and with null
  // when events may have been missed (a reconnect, a resync).
  // `since`, when the page says which event it was read at, replays what came after.
  const listen = (on, since) => {
    const label = document.body.dataset.monorepo;
    if (!label || !window.WebSocket) return;
    let delay = 1000;
    let before = false;
    const connect = () => {
      const after = !before && since ? '?since=' + encodeURIComponent(since) : '';
      const ws = new WebSocket(wsUrl('/v1/monorepos/' + label + '/events' + after));
      let caught = false;
      ws.onmessage = (m) => {
        if (m.data === 'pong') return;
        let f;
        try { f = JSON.parse(m.data); } catch (_) { return; }
        if (f.type === 'caught_up') {
          if (!caught && before) on(null);
          caught = true; before = true; delay = 1000;
        } else if (f.type === 'resync' && (caught || after)) on(null);
        else if (f.type === 'event' && (caught || after)) on(f);
      };
      ws.onclose = (e) => {
        if (e.code === 4403 || e.code === 4404) return;
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      };
    };
    connect();
  };
  // One refresh for a burst of events; `around` may keep state across the swap.
  const refresher = (ids, around) => {
    let timer = null;
    return () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const kept = around ? around.keep() : null;
        try { await window.svcRefresh(ids); } finally { if (around) around.restore(kept); }
      }, 120);
    };
  };

  if (made) {
    made.addEventListener('svc:done', (e) => {
      if (e.detail && e.detail.number) location.href = made.dataset.base + '/issues/' + e.detail.number;
    });
  }

  if (issue) {
    const refresh = refresher(['issue-head', 'issue-body', 'issue-reactions', 'timeline-nav', 'timeline',
      'timeline-more', 'issue-actions']);
    issue.addEventListener('svc:done', (e) => {
      if (e.target.id === 'comment-form') e.target.reset();
      refresh();
    });
    issue.addEventListener('click', async (e) => {
      const b = e.target.closest('button');
      if (!b) return;
      let path;
      let method = 'PUT';
      if (b.matches('.reaction[data-react]')) {
        path = b.dataset.react + '/' + encodeURIComponent(b.dataset.content);
        if (b.getAttribute('aria-pressed') === 'true') method = 'DELETE';
      } else if (b.matches('.react-add')) {
        const pick = b.previousElementSibling;
        if (!pick || !pick.dataset.react) return;
        path = pick.dataset.react + '/' + encodeURIComponent(pick.value);
      } else return;
      // The form works without script too; with it, the page updates in place.
      e.preventDefault();
      const group = b.closest('.reactions');
      b.disabled = true;
      try {
        await window.svcApi(method, path);
        refresh();
      } catch (err) {
        if (group) say(group, err.message, true);
      } finally { b.disabled = false; }
    });
    listen((f) => {
      if (!f || (f.collection === 'issues' && String(f.key) === issue.dataset.liveIssue)) refresh();
    });
  }

  if (followed) {
    const collections = followed.split(' ');
    const refresh = refresher((document.body.dataset.followIds || '').split(' '));
    listen((f) => {
      if (!f || collections.includes('*') || collections.includes(f.collection)) refresh();
    }, document.body.dataset.since);
  }

  if (art) {
    const form = document.getElementById('thread-form');
    const quote = document.getElementById('quote');
    const frame = document.getElementById('document');
    const pick = document.getElementById('comment-selection');
    // Replies being written and open reply boxes, by thread, across a refresh.
    const around = {
      keep: () => {
        const kept = {};
        document.querySelectorAll('#thread-list .thread').forEach((li) => {
          const t = li.querySelector('.reply-form textarea');
          const d = li.querySelector('details.reply-box');
          if ((t && t.value) || (d && d.open)) {
            kept[li.dataset.thread] = { text: t ? t.value : '', open: !!(d && d.open), focused: t === document.activeElement };
          }
        });
        return kept;
      },
      restore: (kept) => {
        // The threads shown changed: so may the passages to highlight.
        const doc = readable();
        if (doc) highlight(doc);
        for (const [id, k] of Object.entries(kept || {})) {
          const li = document.getElementById('thread-' + id);
          if (!li) continue;
          const t = li.querySelector('.reply-form textarea');
          const d = li.querySelector('details.reply-box');
          if (d && k.open) d.open = true;
          if (t) { t.value = k.text; if (k.focused) t.focus(); }
        }
      },
    };
    const refresh = refresher(['thread-list', 'thread-count', 'threads-more', 'artifact-versions'], around);
    art.addEventListener('svc:done', (e) => {
      const f = e.target;
      if (f.classList.contains('reply-form')) {
        f.reset();
        const d = f.closest('details');
        if (d) d.open = false;
      }
      refresh();
    });
    if (form) {
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        const body = { body: form.elements.body.value, version: Number(form.dataset.version) };
        const q = quote ? quote.value.trim() : '';
        if (q) body.quote = q;
        const button = form.querySelector('button[type=submit]');
        button.disabled = true;
        try {
          await window.svcApi('POST', form.dataset.path, body);
          form.elements.body.value = '';
          if (quote) quote.value = '';
          say(form, 'Thread started.');
          refresh();
        } catch (err) {
          say(form, err.message, true);
        } finally { button.disabled = false; }
      });
    }
    // The framed document is same-origin without scripts: this page may read it.
    const readable = () => {
      try {
        return frame && frame.tagName === 'IFRAME' && frame.contentDocument && frame.contentDocument.body
          ? frame.contentDocument : null;
      } catch (_) { return null; }
    };
    // Highlights the passages the open threads quote in the framed document, with CSS
    // highlights (its markup stays as it is). Whitespace runs count as one space on
    // both sides, as a selection's text and the document's text nodes differ there.
    const highlight = (doc) => {
      const win = doc.defaultView;
      if (!win || !win.CSS || !win.CSS.highlights || !win.Highlight) return;
      if (!doc.getElementById('svc-quote-style')) {
        const style = doc.createElement('style');
        style.id = 'svc-quote-style';
        style.textContent = '::highlight(svc-quote){background:var(--mark,#fff1a8);color:inherit}';
        (doc.head || doc.documentElement).append(style);
      }
      const flat = (t) => t.replace(/\s+/g, ' ').trim();
      const quotes = [...art.querySelectorAll('.thread:not(.resolved) blockquote.quote')]
        .map((b) => flat(b.textContent.replace(/…$/, ''))).filter((q) => q.length > 1);
      let text = '';
      const where = [];
      const walk = doc.createTreeWalker(doc.body, win.NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        for (let i = 0; i < n.data.length; i++) {
          const c = /\s/.test(n.data[i]) ? ' ' : n.data[i];
          if (c === ' ' && text.endsWith(' ')) continue;
          text += c;
          where.push([n, i]);
        }
      }
      const ranges = [];
      for (const q of quotes) {
        const at = text.indexOf(q);
        if (at < 0) continue;
        const r = doc.createRange();
        const [from, to] = [where[at], where[at + q.length - 1]];
        r.setStart(from[0], from[1]);
        r.setEnd(to[0], to[1] + 1);
        ranges.push(r);
      }
      win.CSS.highlights.set('svc-quote', new win.Highlight(...ranges));
    };
    const offer = () => {
      const doc = readable();
      if (!doc) return;
      highlight(doc);
      if (pick) pick.hidden = false;
      const h = doc.documentElement.scrollHeight;
      if (h > 0) frame.style.height = Math.min(Math.max(h + 24, 320), 4000) + 'px';
    };
    if (frame) frame.addEventListener('load', offer);
    offer();
    if (pick && form) {
      pick.addEventListener('click', () => {
        const doc = readable();
        const sel = doc && doc.getSelection ? doc.getSelection() : null;
        const text = sel ? String(sel).trim() : '';
        if (text) {
          quote.value = text;
          form.elements.body.focus();
        } else {
          say(form, 'Select a passage in the document first, or paste it into the quote field.', true);
          quote.focus();
        }
      });
    }
    listen((f) => {
      if (!f) refresh();
      else if (f.collection === 'artifact_comments' && f.row && f.row.artifact === art.dataset.artifactId) refresh();
      else if (f.collection === 'artifacts' && f.key === art.dataset.artifactKey) refresh();
    });
  }
})();

// The branch page: streams the rest of a long diff (patches=1&stream=1, one JSON line a
// file) into the sections the server left out, and refreshes the page's sections when the
// branch's own events arrive (a push, new facts, a merge, a status on its head, a review,
// an artifact); the diff only when its ends moved.
(() => {
  const page = document.getElementById('branch-page');
  if (!page) return;
  const repo = page.dataset.repo;
  const branch = page.dataset.branch;
  const label = document.body.dataset.monorepo;
  // Rows the stream draws in all, and in one file, before it waits for a click.
  const ROWS_MAX = 20000;
  const FILE_ROWS_MAX = 2000;
  let drawn = 0;
  let controller = null;

  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const head = () => (document.getElementById('branch-head') || page).dataset.head;

  // The rows of a unified patch, numbered from each hunk's header.
  const rowsOf = (patch) => {
    const out = [];
    let o = 0;
    let n = 0;
    for (let line of patch.split('\n')) {
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') continue;
      if (line.startsWith('@@')) {
        const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(line);
        if (m) { o = Number(m[1]); n = Number(m[2]); }
        out.push({ kind: 'hunk', text: line });
      } else if (line[0] === '+') out.push({ kind: 'add', new: n++, text: line });
      else if (line[0] === '-') out.push({ kind: 'del', old: o++, text: line });
      else if (line[0] === '\\') out.push({ kind: 'note', text: line });
      else out.push({ kind: 'ctx', old: o++, new: n++, text: line });
    }
    return out;
  };

  const table = (path, rows) => {
    const wrap = el('div', 'code diff');
    const t = el('table');
    const thead = el('thead', 'visually-hidden');
    const tr = el('tr');
    for (const h of ['Old line', 'New line', 'Line']) {
      const th = el('th', null, h);
      th.scope = 'col';
      tr.append(th);
    }
    thead.append(tr);
    const body = el('tbody');
    for (const r of rows) {
      const row = el('tr', r.kind);
      if (r.kind === 'hunk') {
        const td = el('td', null, r.text);
        td.colSpan = 3;
        row.append(td);
      } else {
        row.append(el('td', 'n', r.old === undefined ? '' : String(r.old)),
          el('td', 'n', r.new === undefined ? '' : String(r.new)), el('td', null, r.text));
      }
      body.append(row);
    }
    t.append(el('caption', 'visually-hidden', 'Changes in ' + path), thead, body);
    wrap.append(t);
    return wrap;
  };

  const noteOf = (f) => {
    if (f.binary) return 'Binary file: not shown.';
    if (f.patch_omitted === 'too_large') return 'Too large to diff (over 8 MiB on a side).';
    if (f.patch_omitted === 'budget') return 'Past the diff\'s limits: not shown.';
    if (f.patch) return null;
    if (f.status === 'renamed') return 'Moved without changes.';
    if (f.old_mode && f.new_mode && f.old_mode !== f.new_mode) return 'Mode changed from ' + f.old_mode + ' to ' + f.new_mode + '.';
    return 'No changes in the text (an empty file).';
  };

  const section = (f, id, blob) => {
    const s = el('section', 'diff-file');
    s.id = id;
    s.dataset.path = f.path;
    s.setAttribute('aria-labelledby', id + '-h');
    const h = el('h3', 'diff-path');
    h.id = id + '-h';
    h.append(el('span', 'badge', f.status), ' ' + (f.old_path ? f.old_path + ' → ' : '') + f.path);
    if (f.additions != null) h.append(' ', el('span', 'n-add', '+' + f.additions));
    if (f.deletions != null) h.append(' ', el('span', 'n-del', '−' + f.deletions));
    if (f.status !== 'deleted' && blob) {
      const a = el('a', 'view', 'view');
      a.href = blob + f.path.split('/').map(encodeURIComponent).join('/');
      h.append(' ', a);
    }
    s.append(h);
    const note = noteOf(f);
    if (note) { s.append(el('p', 'meta diff-note', note)); return s; }
    const rows = rowsOf(f.patch);
    if (rows.length > FILE_ROWS_MAX || drawn + rows.length > ROWS_MAX) {
      const b = el('button', 'diff-load', 'Show the diff (' + rows.length + ' lines)');
      b.type = 'button';
      b.addEventListener('click', () => { b.replaceWith(table(f.path, rows)); });
      s.append(b);
    } else {
      drawn += rows.length;
      s.append(table(f.path, rows));
    }
    return s;
  };

  // Streams the diff into the sections the page lacks or holds in part.
  async function stream() {
    const box = document.getElementById('diff');
    if (!box || box.dataset.complete !== '0' || !box.dataset.stream || !window.ReadableStream) return;
    if (controller) controller.abort();
    const mine = new AbortController();
    controller = mine;
    const body = box.querySelector('#diff-body');
    if (!body) return;
    let list = box.querySelector('#diff-files');
    const rest = box.querySelector('#diff-rest');
    const raw = box.querySelector('#diff-stats a');
    if (rest) rest.textContent = 'Loading the rest of the diff…';
    const known = new Map();
    box.querySelectorAll('.diff-file').forEach((s) => known.set(s.dataset.path, s));
    const entries = new Map();
    if (list) list.querySelectorAll('li[data-path]').forEach((li) => entries.set(li.dataset.path, li));
    drawn = box.querySelectorAll('.diff-file tr').length;
    let i = 0;
    let end = null;
    const onFile = (f) => {
      const at = 'f-' + i;
      i += 1;
      const old = known.get(f.path);
      if (old && !old.classList.contains('pending')) return;
      const id = old ? old.id : (document.getElementById(at) ? at + '-s' : at);
      const s = section(f, id, box.dataset.blob);
      if (old) old.replaceWith(s); else body.append(s);
      known.set(f.path, s);
      if (!list) {
        const details = el('details', 'diff-list');
        details.open = true;
        details.append(el('summary', null, 'Files'));
        list = el('ol', 'diff-files');
        list.id = 'diff-files';
        details.append(list);
        body.before(details);
      }
      const li = entries.get(f.path);
      const a = el('a', null, f.path);
      a.href = '#' + id;
      if (li) {
        const span = li.querySelector('span:not(.meta)');
        if (span) span.replaceWith(a);
      } else {
        const item = el('li');
        item.dataset.path = f.path;
        const words = f.status + (f.additions != null ? ' +' + f.additions : '') + (f.deletions != null ? ' −' + f.deletions : '');
        item.append(f.old_path ? f.old_path + ' → ' : '', a, ' ', el('span', 'meta', words));
        list.append(item);
        entries.set(f.path, item);
      }
    };
    const handle = (line) => {
      const m = JSON.parse(line);
      if (m.type === 'file') onFile(m);
      else if (m.type === 'end') end = m;
      else if (m.type === 'error') throw new Error(m.message);
    };
    try {
      const r = await fetch(box.dataset.stream, { credentials: 'same-origin', signal: mine.signal });
      if (!r.ok || !r.body) throw new Error('the diff did not load (' + r.status + ')');
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let at;
        while ((at = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, at);
          buf = buf.slice(at + 1);
          if (line.trim()) handle(line);
        }
      }
      if (buf.trim()) handle(buf);
      box.dataset.complete = '1';
      if (end) {
        const add = box.querySelector('#diff-stats .n-add');
        const del = box.querySelector('#diff-stats .n-del');
        if (add) add.textContent = '+' + end.stats.additions;
        if (del) del.textContent = '−' + end.stats.deletions;
      }
      if (rest) {
        const text = end && end.truncated
          ? 'Some files are binary, too large or past the limits and have no diff here. '
          : 'The whole diff is shown. ';
        rest.replaceChildren(text);
        if (raw) rest.append(raw.cloneNode(true));
        rest.className = 'meta';
      }
    } catch (err) {
      if (mine.signal.aborted) return;
      if (rest) {
        rest.replaceChildren('The rest of the diff did not load: ' + err.message + '. ');
        if (raw) rest.append(raw.cloneNode(true));
      }
    }
  }

  // One refresh for a burst of events: the sections from a fresh copy of the page, and
  // the diff too when its ends (merge base and head) changed.
  const SECTIONS = ['branch-head', 'checks', 'merge-box', 'facts', 'artifacts', 'reviews'];
  let timer = null;
  const refresh = () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      let fresh;
      try {
        const r = await fetch(location.href, { credentials: 'same-origin' });
        if (!r.ok) return;
        fresh = new DOMParser().parseFromString(await r.text(), 'text/html');
      } catch (_) { return; }
      for (const id of SECTIONS) {
        const now = document.getElementById(id);
        const next = fresh.getElementById(id);
        if (now && next) now.replaceWith(document.adoptNode(next));
      }
      const now = document.getElementById('diff');
      const next = fresh.getElementById('diff');
      if (now && next && now.dataset.key !== next.dataset.key) {
        if (controller) controller.abort();
        now.replaceWith(document.adoptNode(next));
        stream();
      }
    }, 300);
  };

  const concerns = (f) => {
    const row = f.row || {};
    if (f.repo !== repo) return false;
    if (f.collection === 'branches') return f.key === repo + '/' + branch;
    if (f.collection === 'reviews') return row.branch === branch;
    if (f.collection === 'statuses') return row.sha === head();
    if (f.collection === 'artifacts') return row.branch === branch;
    return false;
  };

  const listen = () => {
    if (!label || !window.WebSocket) return;
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host +
      '/v1/monorepos/' + label + '/events?topics=' + encodeURIComponent('repo:' + repo);
    let delay = 1000;
    let before = false;
    const connect = () => {
      const ws = new WebSocket(url);
      let caught = false;
      ws.onmessage = (m) => {
        if (m.data === 'pong') return;
        let f;
        try { f = JSON.parse(m.data); } catch (_) { return; }
        if (f.type === 'caught_up') {
          // Events may have gone by while the socket was away.
          if (before) refresh();
          caught = true; before = true; delay = 1000;
        } else if (f.type === 'resync' && caught) refresh();
        else if (f.type === 'event' && caught && concerns(f)) refresh();
      };
      ws.onclose = (e) => {
        if (e.code === 4403 || e.code === 4404) return;
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      };
    };
    connect();
  };

  stream();
  listen();
})();

// An agent session's page: while a run goes, its transcript follows agentLive (frames of
// messages from an index); messages past those on the page are added as text (the
// server's rendering replaces them when the run ends). Thinking is folded, a tool's
// result goes under its call.
(() => {
  const page = document.getElementById('session-page');
  if (!page) return;
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  const live = () => (document.getElementById('session-head') || {}).dataset || {};
  const transcript = () => document.getElementById('transcript');
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const asText = (v) => (typeof v === 'string' ? v : v == null ? '' : JSON.stringify(v, null, 2));
  const brief = (input) => {
    if (input && typeof input === 'object') {
      for (const k of ['command', 'cmd', 'file_path', 'path', 'pattern', 'query', 'url']) {
        const v = input[k];
        if (typeof v === 'string') return v.trim().split('\n')[0].slice(0, 80);
        if (Array.isArray(v) && v.length) return v.join(' ').split('\n')[0].slice(0, 80);
      }
      if (!Object.keys(input).length) return '';
    }
    return asText(input).split('\n')[0].slice(0, 80);
  };
  const result = (p, alone) => {
    const box = el('div', 'tool-result' + (p.is_error ? ' error' : ''));
    const head = el('p', 'meta', (p.is_error ? 'Failed' : 'Result') + (alone ? ' of call ' + p.id : '') + ':');
    box.append(head, el('pre', '', asText(p.output)));
    return box;
  };
  const callOf = (id) => $$('[data-call]', transcript()).find((d) => d.dataset.call === id);
  const partOf = (p) => {
    switch (p.type) {
      case 'text': return el('div', 'part text plain', p.text);
      case 'thinking': {
        const d = el('details', 'part thinking');
        d.append(el('summary', '', 'Thinking'), el('div', 'plain', p.text));
        return d;
      }
      case 'tool-call': {
        const d = el('details', 'part tool-call');
        d.dataset.call = p.id;
        const s = el('summary');
        s.append(el('span', 'tool-name', p.name), ' ', el('code', 'tool-brief', brief(p.input)), ' ',
          el('span', 'tool-state meta', 'no result yet'));
        d.append(s, el('pre', 'tool-input', asText(p.input)), el('div', 'tool-results'));
        return d;
      }
      case 'tool-result': {
        const call = callOf(p.id);
        if (call) {
          $('.tool-results', call).append(result(p, false));
          const state = $('.tool-state', call);
          if (state) state.textContent = p.is_error || state.textContent === 'failed' ? 'failed' : 'done';
          return null;
        }
        const d = el('div', 'part tool-result-alone');
        d.dataset.result = p.id;
        d.append(result(p, true));
        return d;
      }
      default: return null;
    }
  };
  const launcher = () => ($('#session-launcher') || {}).textContent || 'You';
  const add = (m) => {
    const list = transcript();
    if (!list || m.index < Number(list.dataset.next || 0)) return;
    list.dataset.next = String(m.index + 1);
    const li = el('li', 'message ' + m.role);
    li.dataset.index = String(m.index);
    const who = el('p', 'who');
    const t = el('time', '', m.at);
    t.setAttribute('datetime', m.at);
    who.append(el('strong', '', m.role === 'user' ? launcher() : m.role === 'tool' ? 'Tool' : 'Agent'), ' ', t);
    li.append(who);
    let parts = 0;
    for (const p of m.parts || []) {
      const node = partOf(p);
      if (node) { li.append(node); parts += 1; }
    }
    if (!parts) return;
    const empty = $('li.empty', list);
    if (empty) empty.remove();
    list.append(li);
  };
  let socket = null;
  let delay = 1000;
  const follow = () => {
    if (socket || live().live !== '1') return;
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + page.dataset.liveApi;
    const ws = new WebSocket(url);
    socket = ws;
    ws.onmessage = (e) => {
      if (e.data === 'pong') return;
      let f;
      try { f = JSON.parse(e.data); } catch (_) { return; }
      if (f.type === 'messages') { delay = 1000; (f.messages || []).forEach(add); }
    };
    ws.onclose = async (e) => {
      socket = null;
      if (e.code === 4403) return;
      if (e.code === 1000) {
        // The run is over: the server's page, with its state and Markdown.
        if (window.svcRefresh) await window.svcRefresh(['session-head', 'transcript', 'session-actions']);
        follow();
        return;
      }
      setTimeout(follow, delay);
      delay = Math.min(delay * 2, 30000);
    };
  };
  // The head is refreshed on agent.updated: a run that starts again is followed.
  new MutationObserver(follow).observe(page, { childList: true });
  follow();
})();

// What changes without an event of a monorepo (a hook delivery's next try, an org's
// people): an element marked `data-poll` is fetched again every `data-poll` seconds (3
// when unset) for as long as the page marks it (a swap may mark or unmark it), but not
// while the person is in one of its fields.
(() => {
  let busy = false;
  let last = Date.now();
  setInterval(() => {
    const polled = document.querySelector('[data-poll][id]');
    if (!polled || !window.svcRefresh || busy) return;
    const every = (Number(polled.dataset.poll) || 3) * 1000;
    if (Date.now() - last < every || polled.contains(document.activeElement)) return;
    busy = true;
    window.svcRefresh([polled.id]).finally(() => { busy = false; last = Date.now(); });
  }, 1000);
})();

// A running CI job's page: its log and state reloaded every 3 s until the job ends.
(() => {
  const running = () => document.querySelector('#log[data-live-log]');
  const again = () => {
    if (!running() || !window.svcRefresh) return;
    setTimeout(() => { window.svcRefresh(['log', 'job-state']).then(again, again); }, 3000);
  };
  again();
})();
