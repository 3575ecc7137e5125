/* slmbench audit site: the trial table, the transcript view and the number pages.
 *
 * Plain JavaScript, no library and no network: the data files are .js files that call SLM.index,
 * SLM.chunk and SLM.searchChunk, loaded with <script src> (works from file://, where fetch() does not).
 * Model text is untrusted: every text goes into the page through textContent or a text node, never as markup.
 */
(function () {
  "use strict";

  var SLM = (window.SLM = window.SLM || {});
  var PAGE_SIZE = 200;
  var store = { index: null, chunks: {}, search: {}, loading: {} };

  SLM.index = function (doc) {
    store.index = decodeIndex(doc);
  };
  SLM.chunk = function (id, trials) {
    store.chunks[id] = trials;
  };
  SLM.searchChunk = function (id, texts) {
    store.search[id] = texts;
  };

  // ---- DOM helpers (text only) -------------------------------------------------------------------------

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    var key;
    if (attrs) {
      for (key in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, key) || attrs[key] === null || attrs[key] === undefined) {
          continue;
        }
        if (key === "text") {
          node.textContent = String(attrs[key]);
        } else if (key === "class") {
          node.className = attrs[key];
        } else if (key === "hidden") {
          node.hidden = Boolean(attrs[key]);
        } else {
          node.setAttribute(key, String(attrs[key]));
        }
      }
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    if (children === null || children === undefined) {
      return node;
    }
    if (!Array.isArray(children)) {
      children = [children];
    }
    children.forEach(function (child) {
      if (child === null || child === undefined || child === false) {
        return;
      }
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    });
    return node;
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
    return node;
  }

  function pretty(value) {
    if (typeof value === "string") {
      return value;
    }
    try {
      return JSON.stringify(value, null, 2);
    } catch (e) {
      return String(value);
    }
  }

  function pre(value, cls) {
    return el("pre", { class: cls || "json", text: pretty(value) });
  }

  function fmt(value) {
    if (value === null || value === undefined || value === "") {
      return "\u2014";
    }
    if (typeof value === "number") {
      return String(Math.round(value * 10000) / 10000);
    }
    if (typeof value === "boolean") {
      return value ? "yes" : "no";
    }
    return String(value);
  }

  function tag(text, cls) {
    return el("span", { class: "tag " + (cls || ""), text: text });
  }

  function outcomeTag(outcome) {
    return tag(fmt(outcome), "outcome outcome-" + String(outcome || "none"));
  }

  function loadScript(path, done) {
    if (store.loading[path] === true) {
      done(null);
      return;
    }
    if (store.loading[path]) {
      store.loading[path].push(done);
      return;
    }
    store.loading[path] = [done];
    var script = document.createElement("script");
    script.src = path;
    script.onload = function () {
      var waiting = store.loading[path];
      store.loading[path] = true;
      waiting.forEach(function (f) {
        f(null);
      });
    };
    script.onerror = function () {
      var waiting = store.loading[path];
      delete store.loading[path];
      waiting.forEach(function (f) {
        f("could not load " + path);
      });
    };
    document.head.appendChild(script);
  }

  // ---- the trial index ---------------------------------------------------------------------------------

  function decodeIndex(doc) {
    var col = {};
    doc.columns.forEach(function (name, i) {
      col[name] = i;
    });
    var byId = {};
    doc.rows.forEach(function (row, i) {
      byId[row[0]] = i;
    });
    return { doc: doc, col: col, rows: doc.rows, cat: doc.categorical, byId: byId };
  }

  function cell(r, name) {
    var ix = store.index;
    var v = ix.rows[r][ix.col[name]];
    if (ix.cat[name] && v !== null && v !== undefined) {
      return ix.cat[name][v];
    }
    return v;
  }

  function trialHref(root, id) {
    return root + "index.html#trial=" + encodeURIComponent(id);
  }

  var COLUMNS = [
    ["trial_id", "trial"],
    ["model", "model"],
    ["task_id", "task"],
    ["variant", "variant"],
    ["suite", "suite"],
    ["temperature", "T"],
    ["scaffold", "scaffold"],
    ["parser_mode", "parser"],
    ["protocol", "protocol"],
    ["outcome", "outcome"],
    ["failure_class", "failure class"],
    ["turns", "turns"],
    ["n_tool_calls", "calls"],
    ["n_refusals", "refusals"]
  ];

  function compareValues(a, b) {
    if (a === b) {
      return 0;
    }
    if (a === null || a === undefined) {
      return 1;
    }
    if (b === null || b === undefined) {
      return -1;
    }
    if (typeof a === "number" && typeof b === "number") {
      return a - b;
    }
    return String(a).localeCompare(String(b));
  }

  // A filterable, sortable, paged table of trials (rows: positions in the index).
  function TrialTable(container, opts) {
    this.container = container;
    this.rows = opts.rows;
    this.root = opts.root;
    this.useHash = opts.useHash;
    this.filters = {};
    this.q = "";
    this.sort = null;
    this.page = 0;
    this.searchToken = 0;
    this.build();
  }

  TrialTable.prototype.build = function () {
    var self = this;
    var ix = store.index;
    var bar = el("form", { class: "filters", "aria-label": "filter trials" });
    bar.addEventListener("submit", function (e) {
      e.preventDefault();
    });
    this.selects = {};
    ix.doc.filters.forEach(function (pair) {
      var name = pair[0];
      var counts = {};
      self.rows.forEach(function (r) {
        var code = ix.rows[r][ix.col[name]];
        counts[code] = (counts[code] || 0) + 1;
      });
      var select = el("select", { "data-filter": name, id: "filter-" + name });
      select.appendChild(el("option", { value: "", text: "all" }));
      ix.cat[name].forEach(function (value, code) {
        if (counts[code]) {
          select.appendChild(el("option", { value: String(value), text: fmt(value) + " (" + counts[code] + ")" }));
        }
      });
      if (counts[null] || counts[undefined]) {
        select.appendChild(el("option", { value: "\u0000none", text: "none (" + (counts[null] || counts[undefined]) + ")" }));
      }
      if (select.options.length <= 2) {
        return; // one value among these trials: nothing to filter
      }
      select.addEventListener("change", function () {
        self.filters[name] = select.value;
        self.page = 0;
        self.changed();
      });
      self.selects[name] = select;
      bar.appendChild(el("label", { class: "filter" }, [el("span", { text: pair[1] }), select]));
    });
    this.search = el("input", {
      type: "search",
      id: "search",
      placeholder: "search in messages",
      "aria-label": "search in messages"
    });
    var timer = null;
    this.search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        self.q = self.search.value.trim();
        self.page = 0;
        self.changed();
      }, 250);
    });
    bar.appendChild(el("label", { class: "filter search" }, [el("span", { text: "search" }), this.search]));
    this.status = el("p", { class: "status", id: "table-status", role: "status" });
    this.table = el("table", { class: "trials", id: "trial-table" });
    var head = el("tr");
    COLUMNS.forEach(function (pair) {
      var th = el("th", { scope: "col" }, el("button", { type: "button", class: "sort", "data-sort": pair[0], text: pair[1] }));
      th.firstChild.addEventListener("click", function () {
        if (self.sort && self.sort[0] === pair[0]) {
          self.sort = [pair[0], -self.sort[1]];
        } else {
          self.sort = [pair[0], 1];
        }
        self.page = 0;
        self.changed();
      });
      head.appendChild(th);
    });
    this.table.appendChild(el("thead", null, head));
    this.tbody = el("tbody");
    this.table.appendChild(this.tbody);
    this.pager = el("nav", { class: "pager", "aria-label": "pages" });
    append(clear(this.container), [bar, this.status, el("div", { class: "table-wrap" }, this.table), this.pager]);
  };

  TrialTable.prototype.changed = function () {
    if (this.useHash) {
      var hash = this.stateHash();
      if ((location.hash || "").replace(/^#/, "") !== hash) {
        try {
          history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
        } catch (e) {
          location.replace("#" + hash);
        }
      }
    }
    this.render();
  };

  TrialTable.prototype.stateHash = function () {
    var parts = [];
    var self = this;
    Object.keys(this.filters).forEach(function (name) {
      if (self.filters[name]) {
        parts.push(encodeURIComponent(name) + "=" + encodeURIComponent(self.filters[name]));
      }
    });
    if (this.q) {
      parts.push("q=" + encodeURIComponent(this.q));
    }
    if (this.sort) {
      parts.push("sort=" + encodeURIComponent(this.sort[0] + ":" + (this.sort[1] > 0 ? "asc" : "desc")));
    }
    if (this.page) {
      parts.push("page=" + (this.page + 1));
    }
    return parts.join("&");
  };

  TrialTable.prototype.applyHash = function (params) {
    var self = this;
    this.filters = {};
    Object.keys(this.selects).forEach(function (name) {
      var value = params[name] || "";
      var select = self.selects[name];
      select.value = value;
      if (select.value !== value) {
        select.value = "";
      }
      self.filters[name] = select.value;
    });
    this.q = params.q || "";
    this.search.value = this.q;
    this.sort = null;
    if (params.sort) {
      var s = params.sort.split(":");
      this.sort = [s[0], s[1] === "desc" ? -1 : 1];
    }
    this.page = params.page ? Math.max(0, parseInt(params.page, 10) - 1 || 0) : 0;
    this.render();
  };

  TrialTable.prototype.matches = function (r) {
    var ix = store.index;
    for (var name in this.filters) {
      var want = this.filters[name];
      if (!want) {
        continue;
      }
      var code = ix.rows[r][ix.col[name]];
      if (want === "\u0000none") {
        if (code !== null && code !== undefined) {
          return false;
        }
      } else if (code === null || code === undefined || String(ix.cat[name][code]) !== want) {
        return false;
      }
    }
    return true;
  };

  TrialTable.prototype.render = function () {
    var self = this;
    var ix = store.index;
    var rows = this.rows.filter(function (r) {
      return self.matches(r);
    });
    if (this.q) {
      var needed = {};
      rows.forEach(function (r) {
        var shard = cell(r, "shard");
        if (shard !== null && shard !== undefined && !store.search[shard]) {
          needed[shard] = true;
        }
      });
      var missing = Object.keys(needed);
      if (missing.length) {
        this.loadSearch(missing);
        return;
      }
      var q = this.q.toLowerCase();
      rows = rows.filter(function (r) {
        var shard = cell(r, "shard");
        var texts = shard === null || shard === undefined ? null : store.search[shard];
        var text = texts ? texts[ix.rows[r][0]] : null;
        return Boolean(text) && text.indexOf(q) >= 0;
      });
    }
    if (this.sort) {
      var name = this.sort[0];
      var dir = this.sort[1];
      rows = rows.slice().sort(function (a, b) {
        return dir * compareValues(cell(a, name), cell(b, name)) || a - b;
      });
    }
    var pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
    this.page = Math.min(this.page, pages - 1);
    var shown = rows.slice(this.page * PAGE_SIZE, (this.page + 1) * PAGE_SIZE);
    var body = el("tbody");
    shown.forEach(function (r) {
      var tr = el("tr", { "data-trial": ix.rows[r][0] });
      COLUMNS.forEach(function (pair) {
        var v = cell(r, pair[0]);
        var td;
        if (pair[0] === "trial_id") {
          td = el("td", { class: "id" }, el("a", { class: "trial-link", href: trialHref(self.root, v), text: v }));
          if (cell(r, "shard") === null || cell(r, "shard") === undefined) {
            td.appendChild(tag("no transcript", "muted"));
          }
        } else if (pair[0] === "outcome") {
          td = el("td", null, outcomeTag(v));
        } else {
          td = el("td", { text: fmt(v) });
        }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    this.table.replaceChild(body, this.tbody);
    this.tbody = body;
    this.table.querySelectorAll("button.sort").forEach(function (b) {
      var on = self.sort && self.sort[0] === b.getAttribute("data-sort");
      b.setAttribute("aria-sort", on ? (self.sort[1] > 0 ? "ascending" : "descending") : "none");
    });
    var first = rows.length ? this.page * PAGE_SIZE + 1 : 0;
    this.status.textContent =
      rows.length + " of " + this.rows.length + " trials" +
      (rows.length ? " \u00b7 showing " + first + "\u2013" + (first + shown.length - 1) : "");
    this.status.setAttribute("data-count", String(rows.length));
    clear(this.pager);
    if (pages > 1) {
      var prev = el("button", { type: "button", text: "\u2190 previous", disabled: this.page === 0 ? "disabled" : null });
      var next = el("button", { type: "button", text: "next \u2192", disabled: this.page >= pages - 1 ? "disabled" : null });
      prev.addEventListener("click", function () {
        self.page -= 1;
        self.changed();
      });
      next.addEventListener("click", function () {
        self.page += 1;
        self.changed();
      });
      append(this.pager, [prev, el("span", { text: " page " + (this.page + 1) + " of " + pages + " " }), next]);
    }
  };

  TrialTable.prototype.loadSearch = function (shards) {
    var self = this;
    var token = ++this.searchToken;
    var done = 0;
    var next = 0;
    var failed = [];
    self.status.textContent = "loading the messages of " + shards.length + " shards to search\u2026";
    function one() {
      if (next >= shards.length) {
        return;
      }
      var shard = shards[next++];
      loadScript(self.root + "search/" + shard + ".js", function (err) {
        if (err) {
          failed.push(shard);
          store.search[shard] = {};
        }
        done += 1;
        if (token !== self.searchToken) {
          return;
        }
        self.status.textContent = "searching: " + done + " of " + shards.length + " shards loaded";
        if (done === shards.length) {
          self.render();
          if (failed.length) {
            self.status.textContent += " (could not load " + failed.join(", ") + ")";
          }
        } else {
          one();
        }
      });
    }
    for (var i = 0; i < 4; i++) {
      one();
    }
  };

  // ---- the transcript of one trial ---------------------------------------------------------------------

  function dl(pairs, cls) {
    var list = el("dl", { class: cls || "facts" });
    pairs.forEach(function (p) {
      if (p[1] === undefined) {
        return;
      }
      append(list, [el("dt", { text: p[0] }), el("dd", null, typeof p[1] === "object" && p[1] !== null && p[1].nodeType ? p[1] : fmt(p[1]))]);
    });
    return list;
  }

  function section(title, children, cls) {
    return el("section", { class: "block " + (cls || "") }, [el("h3", { text: title })].concat(children));
  }

  function evHead(kind, label, extra) {
    return el("header", { class: "ev-head" }, [tag(label, "ev-kind ev-" + kind)].concat(extra || []));
  }

  function small(text) {
    return el("span", { class: "meta", text: text });
  }

  function argPanel(title, value, cls) {
    return el("div", { class: "panel " + cls }, [el("h5", { text: title }), pre(value, "json " + cls)]);
  }

  var RENDER = {
    model_request: function (e) {
      var o = e.options || {};
      var opts = Object.keys(o).filter(function (k) {
        return o[k] !== null && !(Array.isArray(o[k]) && !o[k].length) && o[k] !== false;
      }).map(function (k) {
        return k + " " + (typeof o[k] === "object" ? JSON.stringify(o[k]) : o[k]);
      });
      return [evHead("request", e.purpose === "closing" ? "closing request" : "request", [
        small(e.n_messages + " messages"),
        small(opts.join(", ")),
        small("prompt " + String(e.prompt_sha256 || "").slice(0, 12))
      ])];
    },
    model_response: function (e) {
      var out = [evHead("response", "model output", [
        small(e.prompt_tokens + " prompt + " + e.completion_tokens + " completion tokens"),
        small(e.cached_tokens + " cached"),
        small(fmt(e.latency_s) + " s"),
        small("finish: " + fmt(e.finish_reason))
      ]), pre(e.raw_text === "" ? "(empty output)" : e.raw_text, "raw-text")];
      if (e.native_tool_calls && e.native_tool_calls.length) {
        out.push(argPanel("native tool calls", e.native_tool_calls, "native-calls"));
      }
      return out;
    },
    tool_call: function (e) {
      var panels = [
        el("div", { class: "panel raw" }, [el("h5", { text: "raw text (" + e.surface + ")" }), pre(e.raw_span, "raw-span")]),
        argPanel("parsed arguments", e.arguments, "arguments")
      ];
      if (e.repaired_arguments !== null && e.repaired_arguments !== undefined) {
        panels.push(argPanel("repaired arguments (run)", e.repaired_arguments, "repaired-arguments"));
      }
      var out = [evHead("call", "tool call", [el("strong", { class: "tool-name", text: e.name }), small(e.call_id), small(e.parser_mode + " parser")]),
        el("div", { class: "call-grid" }, panels)];
      if (e.repairs && e.repairs.length) {
        out.push(el("p", { class: "repairs" }, [el("span", { text: "repairs: " })].concat(e.repairs.map(function (r) {
          return tag(r, "repair");
        }))));
      }
      return out;
    },
    refusal: function (e) {
      var out = [evHead("refusal", "refusal", [el("strong", { class: "refusal-code", text: e.code }), e.name ? small("tool " + e.name) : null]),
        el("p", { class: "reason" }, [el("span", { class: "label", text: "reason: " }), el("span", { class: "reason-text", text: e.reason })])];
      var panels = [];
      if (e.raw_span) {
        panels.push(el("div", { class: "panel raw" }, [el("h5", { text: "raw text" }), pre(e.raw_span, "raw-span")]));
      }
      if (e.arguments !== null && e.arguments !== undefined) {
        panels.push(argPanel("arguments as sent", e.arguments, "arguments"));
      }
      if (panels.length) {
        out.push(el("div", { class: "call-grid" }, panels));
      }
      if (e.repairs && e.repairs.length) {
        out.push(el("p", { class: "repairs" }, [el("span", { text: "repairs: " })].concat(e.repairs.map(function (r) {
          return tag(r, "repair");
        }))));
      }
      return out;
    },
    fault: function (e) {
      return [evHead("fault", "injected fault", [el("strong", { text: e.kind }), small("tool " + e.tool), small(e.call_id)])];
    },
    tool_result: function (e) {
      var out = [evHead("result", "tool result", [el("strong", { text: e.name }), small(e.call_id), tag(e.ok ? "ok" : "error", e.ok ? "ok" : "bad")])];
      if (e.error) {
        out.push(el("p", { class: "tool-error", text: e.error }));
      }
      if (e.content !== null && e.content !== undefined) {
        out.push(pre(e.content, "json result"));
      }
      return out;
    },
    stuck: function (e) {
      return [evHead("stuck", "stuck", [small("call " + e.call_id + " repeats " + e.first_call_id + " (" + e.name + "): not run again")])];
    },
    final_answer: function (e) {
      return [evHead("answer", "final answer", [small("channel: " + e.channel)]), pre(e.text, "answer")];
    },
    tool_state: function (e) {
      return [el("details", null, [el("summary", null, evHead("state", "tools' end state")), pre(e.snapshot)])];
    },
    end: function (e) {
      return [evHead("end", "end", [
        small("as recorded: " + e.outcome + (e.failure_class ? " / " + e.failure_class : "")),
        small("stop: " + e.stop_reason),
        small(e.turns + " turns"),
        small(fmt(e.wall_s) + " s"),
        small("peak RSS " + fmt(e.peak_rss_mb) + " MB")
      ]), e.error ? el("p", { class: "tool-error", text: e.error }) : null];
    }
  };

  function renderEvent(e) {
    var render = RENDER[e.type];
    var body;
    if (render) {
      try {
        body = render(e);
      } catch (err) {
        body = null;
      }
    }
    if (!body) {
      body = [evHead("other", String(e.type)), pre(e)];
    }
    var node = el("div", { class: "event ev-" + String(e.type).replace(/[^a-z_]/g, ""), "data-type": String(e.type) }, body);
    var head = node.querySelector(".ev-head");
    append(head || node, el("span", { class: "meta time", text: "t=" + fmt(e.t) + " s" }));
    return node;
  }

  function criteriaTable(criteria) {
    var table = el("table", { class: "criteria" });
    table.appendChild(el("thead", null, el("tr", null, ["criterion", "required", "result", "detail", "harm"].map(function (h) {
      return el("th", { scope: "col", text: h });
    }))));
    var body = el("tbody");
    criteria.forEach(function (c) {
      body.appendChild(el("tr", { class: c.ok ? "pass" : "fail" }, [
        el("td", { text: fmt(c.kind) }),
        el("td", { text: fmt(c.required) }),
        el("td", null, tag(c.ok ? "pass" : "fail", c.ok ? "ok" : "bad")),
        el("td", { text: fmt(c.detail) }),
        el("td", { text: c.harm ? "harm" : "" })
      ]));
    });
    table.appendChild(body);
    return table;
  }

  function renderTranscript(view, item, row) {
    var rec = item.record;
    var v = item.verdict || {};
    var blocks = [];
    var verdict = [
      ["outcome", outcomeTag(v.outcome)],
      ["failure class", v.failure_class],
      ["failure class (clock first)", v.failure_class_clock_first],
      ["partial credit", v.partial],
      ["stop reason", v.stop_reason],
      ["answer channel", v.answer_channel],
      ["refused", v.refused],
      ["harm", v.harm],
      ["judged from", v.state_source === undefined ? undefined : "tool state: " + fmt(v.state_source) + (v.rescored === false ? " (not re-scored: the run's check kept)" : "")],
      ["check", v.check_sha256 ? String(v.check_sha256).slice(0, 16) : undefined],
      ["primary condition", v.primary]
    ];
    var verdictBlock = [dl(verdict, "facts verdict")];
    if (v.recorded_outcome && v.recorded_outcome !== v.outcome) {
      verdictBlock.unshift(el("p", { class: "note", text: "The run recorded " + v.recorded_outcome + "; today's checks judge this trial " + v.outcome + "." }));
    }
    var top = el("div", { class: "top-grid" });
    blocks.push(top);
    top.appendChild(section("Verdict (tidy, re-scored)", verdictBlock, "verdict-block"));
    if (item.posed) {
      top.appendChild(section("Task as posed", [
        pre(item.posed.instruction, "instruction"),
        dl([
          ["tools offered", item.posed.tools.join(", ")],
          ["injected faults", item.posed.faults.length ? item.posed.faults.map(function (f) {
            return f.kind + " on " + f.tool + (f.times === null ? " (always)" : " (" + f.times + "\u00d7)");
          }).join("; ") : "none"]
        ])
      ], "task-block"));
    }
    var criteria = Array.isArray(v.criteria) ? v.criteria : null;
    var note = "today's check, as tidy judged the record";
    if (!criteria && rec.check) {
      criteria = rec.check.criteria;
      note = "as judged at run time (the tidy table holds no criteria)";
    }
    if (criteria && criteria.length) {
      blocks.push(section("Check criteria", [el("p", { class: "meta", text: note }), criteriaTable(criteria)], "check-block"));
    } else {
      blocks.push(section("Check criteria", [el("p", { class: "meta", text: "no check (an infrastructure error, or a trial that was not judged)" })], "check-block"));
    }
    var conv = el("div", { class: "conversation" });
    var turn = null;
    var box = null;
    (rec.events || []).forEach(function (e) {
      var t = e.turn === undefined || e.turn === null ? "after" : e.turn;
      if (t !== turn) {
        turn = t;
        box = el("section", { class: "turn", "data-turn": String(t) }, el("h4", { text: t === "after" ? "After the last turn" : "Turn " + t }));
        conv.appendChild(box);
      }
      box.appendChild(renderEvent(e));
    });
    blocks.push(section("Conversation", [conv], "conversation-block"));
    blocks.push(section("Fingerprint and settings", [
      el("details", { open: "open" }, [el("summary", { text: "fingerprint" }), pre(rec.fingerprint, "json fingerprint")]),
      el("details", null, [el("summary", { text: "provenance" }), pre(rec.provenance)])
    ], "fingerprint-block"));
    blocks.push(section("Source", [dl([
      ["raw file", item.source.file + ":" + item.source.line],
      ["started", rec.started_at],
      ["seed", rec.seed],
      ["repeat", rec.repeat],
      ["schema", rec.schema_version],
      ["transcript hash", v.transcript_sha256]
    ])]));
    append(view, blocks);
  }

  function showTrial(view, id, root) {
    var ix = store.index;
    clear(view);
    var back = el("a", { href: "#", class: "back", text: "\u2190 back to the trials" });
    back.addEventListener("click", function (e) {
      if (history.length > 1) {
        e.preventDefault();
        history.back();
      }
    });
    append(view, [el("p", null, back), el("h2", { class: "trial-title", text: id })]);
    var r = ix.byId[id];
    if (r === undefined) {
      view.appendChild(el("p", { class: "note", text: "No trial with this id in the site." }));
      return;
    }
    append(view, dl([
      ["study", cell(r, "study")], ["model", cell(r, "model")], ["task", cell(r, "task_id")],
      ["variant", cell(r, "variant")], ["suite", cell(r, "suite")], ["temperature", cell(r, "temperature")],
      ["scaffold", cell(r, "scaffold")], ["parser mode", cell(r, "parser_mode")], ["protocol", cell(r, "protocol")]
    ], "facts summary"));
    var shard = cell(r, "shard");
    if (shard === null || shard === undefined) {
      view.appendChild(el("p", { class: "note", text: "No transcript: this trial comes from an imported study's published report, not from a raw record of this pipeline." }));
      return;
    }
    var wait = el("p", { class: "meta", text: "loading the transcript\u2026" });
    view.appendChild(wait);
    loadScript(root + "trials/" + shard + ".js", function (err) {
      if (view.getAttribute("data-trial") !== id) {
        return;
      }
      view.removeChild(wait);
      var item = store.chunks[shard] && store.chunks[shard][id];
      if (err || !item) {
        view.appendChild(el("p", { class: "note", text: err || "trial missing from its shard file" }));
        return;
      }
      renderTranscript(view, item, r);
      view.setAttribute("data-loaded", "true");
    });
  }

  // ---- pages -------------------------------------------------------------------------------------------

  function parseHash() {
    var out = {};
    (location.hash || "").replace(/^#/, "").split("&").forEach(function (part) {
      if (!part) {
        return;
      }
      var i = part.indexOf("=");
      var k = decodeURIComponent(i < 0 ? part : part.slice(0, i));
      out[k] = i < 0 ? "" : decodeURIComponent(part.slice(i + 1));
    });
    return out;
  }

  function pageData() {
    var node = document.getElementById("page-data");
    return node ? JSON.parse(node.textContent) : {};
  }

  function allRows() {
    var out = [];
    for (var i = 0; i < store.index.rows.length; i++) {
      out.push(i);
    }
    return out;
  }

  function trialsPage(root) {
    var tableView = document.getElementById("table-view");
    var trialView = document.getElementById("trial-view");
    var table = new TrialTable(document.getElementById("trial-table-box"), { rows: allRows(), root: root, useHash: true });
    function route() {
      var params = parseHash();
      if (params.trial !== undefined) {
        tableView.hidden = true;
        trialView.hidden = false;
        trialView.setAttribute("data-trial", params.trial);
        trialView.removeAttribute("data-loaded");
        showTrial(trialView, params.trial, root);
        window.scrollTo(0, 0);
      } else {
        trialView.hidden = true;
        trialView.removeAttribute("data-trial");
        tableView.hidden = false;
        table.applyHash(params);
      }
    }
    window.addEventListener("hashchange", route);
    route();
  }

  function numberPage(root) {
    var data = pageData();
    var rows = [];
    (data.ranges || []).forEach(function (run) {
      for (var i = run[0]; i < run[1]; i++) {
        rows.push(i);
      }
    });
    new TrialTable(document.getElementById("trial-table-box"), { rows: rows, root: root, useHash: false }).render();
  }

  function numbersPage() {
    var input = document.getElementById("number-filter");
    var rows = Array.prototype.slice.call(document.querySelectorAll("#numbers tbody tr"));
    var status = document.getElementById("number-status");
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase();
      var n = 0;
      rows.forEach(function (tr) {
        var on = !q || tr.textContent.toLowerCase().indexOf(q) >= 0;
        tr.hidden = !on;
        n += on ? 1 : 0;
      });
      status.textContent = n + " of " + rows.length + " numbers";
    });
  }

  function init() {
    var body = document.body;
    var root = body.getAttribute("data-root") || "";
    var kind = body.getAttribute("data-page");
    if (kind === "numbers") {
      numbersPage();
      return;
    }
    if (!store.index) {
      document.getElementById("trial-table-box").textContent = "The trial index (data/index.js) did not load.";
      return;
    }
    if (kind === "trials") {
      trialsPage(root);
    } else if (kind === "number") {
      numberPage(root);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
