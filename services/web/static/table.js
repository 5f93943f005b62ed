// The Truco table: ONE component for /play, a live match and a replay (docs/play.md, "The
// table"). It folds a game's events, as one viewer may see them (the server decides what that
// viewer may see, never this script), into the table's state, draws it, and narrates every
// event with the words the page carries (#table-words: services/web/views/table_words.py).
// The server draws the same table from the same events (templates/_table.html,
// services/web/views/replay.py and narration.py): keep them alike; a browser test steps a
// replay in the page and compares both at every step.
(function () {
  "use strict";

  // ------------------------------------------------------------------ text

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  // "%(name)s" / "%(n)d" filled from values (the catalogues' Python format)
  function fmt(template, values) {
    return String(template).replace(/%\((\w+)\)[sd]/g, function (_, key) {
      return key in values ? String(values[key]) : "";
    });
  }

  // Jinja's truncate(n, true, "…") with its leeway of 5, as the server cuts the same text
  function cut(text, n) {
    text = String(text);
    return text.length <= n + 5 ? text : text.slice(0, n - 1) + "…";
  }

  // ------------------------------------------------------------------ cards and matches

  // a card as _macros.html draws it: the frame's cuts tell the suit (#frame-S, none for oros,
  // one for copas, two for espadas, three for bastos)
  function cardSvg(card, name, cls) {
    var rank = esc(card.slice(0, -1));
    var suit = esc(card.slice(-1));
    var label = esc(name || card);
    return '<svg class="card suit-' + suit + " " + (cls || "") + '" viewBox="0 0 60 90" role="img"' +
      ' aria-label="' + label + '" data-card="' + esc(card) + '"><title>' + label + "</title>" +
      '<rect class="face" x="1" y="1" width="58" height="88" rx="6"/>' +
      '<use href="#frame-' + suit + '" width="60" height="90"/>' +
      '<text class="rank" x="8" y="21">' + rank + "</text>" +
      '<use href="#suit-' + suit + '" x="10" y="27" width="40" height="40"/>' +
      '<text class="rank small" x="52" y="81" text-anchor="end">' + rank + "</text></svg>";
  }

  function backSvg(label, cls) {
    label = esc(label);
    return '<svg class="card back ' + (cls || "") + '" viewBox="0 0 60 90" role="img" aria-label="' + label + '">' +
      "<title>" + label + '</title><rect class="face" x="1" y="1" width="58" height="88" rx="6"/>' +
      '<rect x="6" y="6" width="48" height="78" rx="3" fill="url(#card-back)"/></svg>';
  }

  // the score as fósforos (_table.html's fosforos): groups of five, three groups a row, a
  // second row (the buenas) in a game to 30
  function fosforos(n, target, team) {
    var rows = target > 15 ? 2 : 1;
    var count = Math.min(n, target);
    var out = ['<svg class="fosforos" viewBox="0 0 56 ' + (rows * 24 - 6) + '" aria-hidden="true" focusable="false"' +
      ' data-team="' + team + '" data-count="' + count + '">'];
    if (rows === 2) out.push('<line class="medio" x1="0" y1="21" x2="56" y2="21"/>');
    for (var i = 0; i < count; i++) {
      var g = Math.floor(i / 5), k = i % 5;
      var x = 2 + (g % 3) * 18, y = 2 + Math.floor(g / 3) * 24;
      var p = [[x, y + 14, x, y], [x, y, x + 14, y], [x + 14, y, x + 14, y + 14], [x + 14, y + 14, x, y + 14], [x, y + 14, x + 14, y]][k];
      out.push('<line class="palo" x1="' + p[0] + '" y1="' + p[1] + '" x2="' + p[2] + '" y2="' + p[3] + '"/>' +
        '<circle class="cabeza" cx="' + p[2] + '" cy="' + p[3] + '" r="1.8"/>');
    }
    out.push("</svg>");
    return out.join("");
  }

  // ------------------------------------------------------------------ narration

  var SUMMARY_KINDS = ["round_ended", "envido_settled", "envido_cancelled", "flor_settled", "truco_settled", "hand_ended"];

  // services/web/views/narration.py's Narrator, word for word
  function Narrator(ctx, w) {
    this.seats = ctx.seats.map(function (s) { return s.name; });
    this.teams = ctx.team_words;
    this.you = ctx.you === undefined ? null : ctx.you;
    this.w = w;
  }

  Narrator.prototype.who = function (seat) {
    return seat >= 0 && seat < this.seats.length ? this.seats[seat] : "#" + seat;
  };

  Narrator.prototype.say = function (key, values) { return fmt(this.w.s[key], values); };

  Narrator.prototype.by = function (key, seat, values) {
    if (seat === this.you) return this.say(key + "_you", values);
    var v = { who: this.who(seat) };
    Object.keys(values).forEach(function (k) { v[k] = values[k]; });
    return this.say(key, v);
  };

  Narrator.prototype.declarations = function (found) {
    var self = this;
    return (found || []).map(function (d) {
      return d.points == null ? self.by("buenas", d.seat, {}) : self.by("declared", d.seat, { points: d.points });
    });
  };

  Narrator.prototype.points = function (points, team) {
    return this.say("points_to", { points: points, team: this.teams[team] });
  };

  function joined(parts) { return parts.filter(function (p) { return p; }).join(". "); }

  Narrator.prototype.line = function (ev) {
    var w = this.w, self = this;
    var t = ev.type;
    if (t === "hand_started") {
      var dealer = (ev.mano - 1 + Math.max(1, this.seats.length)) % Math.max(1, this.seats.length);
      if (ev.mano === this.you) return this.say("hand_you_mano", { hand: ev.hand + 1, dealer: this.who(dealer) });
      if (dealer === this.you) return this.say("hand_you_deal", { hand: ev.hand + 1, mano: this.who(ev.mano) });
      return this.say("hand", { hand: ev.hand + 1, dealer: this.who(dealer), mano: this.who(ev.mano) });
    }
    if (t === "action") {
      var word = ev.action, line;
      if (word === "play" && ev.card) line = this.by("play", ev.seat, { card: w.cards[ev.card] || ev.card });
      else if (word === "mazo") line = this.by("mazo", ev.seat, {});
      else if (w.answers.indexOf(word) >= 0) line = this.by("answer", ev.seat, { answer: (w.named[word] || word).toLowerCase() });
      else line = this.by("canto", ev.seat, { canto: (w.named[word] || word).toLowerCase() });
      if (ev.sena) line = this.say("sena", { line: line, sena: w.senas[ev.sena] || ev.sena });
      return line;
    }
    if (t === "round_ended") {
      if (ev.winner == null) return this.say("round_parda", { round: ev.round + 1 });
      var card = "";
      (ev.plays || []).forEach(function (p) { if (p[0] === ev.next_leader && !card) card = p[1]; });
      return this.say("round", { round: ev.round + 1, team: this.teams[ev.winner], card: w.cards[card] || card });
    }
    if (t === "envido_settled") {
      var chain = (ev.chain || []).map(function (c, i) {
        var name = w.named[c] || c;
        return i ? name.toLowerCase() : name;
      }).join(", ");
      var head = this.say("envido", { chain: chain, answer: ev.querido ? "querido" : "no querido" });
      return joined([head].concat(this.declarations(ev.declarations), [this.points(ev.points, ev.winner)]));
    }
    if (t === "envido_cancelled") return this.say("envido_cancelled", {});
    if (t === "flor_settled") {
      var bet = this.say("flor", { bet: w.named[ev.bet] || ev.bet, outcome: w.flor[ev.outcome] || ev.outcome });
      return joined([bet].concat(this.declarations(ev.declarations), [this.points(ev.points, ev.winner)]));
    }
    if (t === "truco_settled") {
      return this.say("truco", { level: w.named[ev.level] || ev.level, answer: ev.querido ? "querido" : "no querido" });
    }
    if (t === "hand_ended") {
      var first = ev.winner == null ? this.say("hand_over", { hand: ev.hand + 1 })
        : this.say("hand_won", { hand: ev.hand + 1, team: this.teams[ev.winner], points: ev.points, reason: w.reasons[ev.reason] || ev.reason });
      return joined([first].concat((ev.shown || []).map(function (s) {
        return self.by("shows", s.seat, { cards: s.cards.map(function (c) { return w.cards[c] || c; }).join(", ") });
      })));
    }
    if (t === "game_ended") {
      if (this.you === null) return this.say("game", { team: this.teams[ev.winner], a: ev.score[0], b: ev.score[1] });
      var won = ev.score[ev.winner], lost = ev.score[1 - ev.winner];
      return this.say(ev.winner === this.you % 2 ? "game_we" : "game_they", { a: won, b: lost });
    }
    if (t === "start_fault") return ev.text || "";
    return "";
  };

  // ------------------------------------------------------------------ the fold

  function kindOf(ev, w) {
    var t = ev.type;
    if (t === "hand_started") return "hand";
    if (t === "action") return ev.action === "play" ? "play" : w.answers.indexOf(ev.action) >= 0 ? "answer" : "canto";
    if (t === "round_ended") return "round";
    if (t === "envido_settled" || t === "flor_settled" || t === "truco_settled" || t === "envido_cancelled") return "settle";
    if (t === "hand_ended" || t === "game_ended") return "end";
    return "fault";
  }

  // A game's table, event after event (services/web/views/replay.py's fold_each, its timeline
  // and its score by hand). ctx: the table (players, seats [{name, id}], teams, team_words,
  // you, target, positions); w: the page's words.
  function Fold(ctx, w) {
    this.ctx = ctx;
    this.w = w;
    this.narrator = new Narrator(ctx, w);
    this.seats = [];
    for (var i = 0; i < ctx.players; i++) {
      this.seats.push({ seat: i, team: i % 2, position: ctx.positions[i], cards: [], played: [], shown: [],
        mano: false, dealer: false, bubble: null, faults: 0 });
    }
    this.step = -1;
    this.handIndex = 0;
    this.hand = 0;
    this.mano = 0;
    this.score = [0, 0];
    this.round = 1;
    this.results = [];
    this.truco = null;
    this.gameOver = false;
    this.caption = "";
    this.summary = null;
    this.thisHand = [];
    this.pending = {};
    this.current = null;
    this.timeline = [];
    this.rows = [];
    this.open = null; // the score-by-hand row of the hand being played
    this.handStarts = [];
  }

  // apply one event; true when it is a step of the game (a decision record is not)
  Fold.prototype.apply = function (ev) {
    var w = this.w, ctx = this.ctx, self = this;
    if (ev.type === "decision") { this.pending[ev.seat] = ev; return false; }
    this.step += 1;
    var decision = null;
    if (ev.type === "action") {
      decision = this.pending[ev.seat] || null;
      delete this.pending[ev.seat];
    }
    var t = ev.type;
    if (t === "hand_started") {
      this.handIndex = ev.hand;
      this.handStarts.push(this.step);
      this.hand = ev.hand + 1;
      this.mano = ev.mano;
      this.score = ev.score.slice();
      this.round = 1;
      this.truco = null;
      this.results = [];
      this.summary = null;
      this.thisHand = [];
      var dealer = (ev.mano - 1 + ctx.players) % ctx.players;
      this.seats.forEach(function (s) {
        var dealt = ev.deal && ev.deal[s.seat] ? ev.deal[s.seat] : [];
        var cards = dealt.slice();
        if (!cards.length) cards = [null, null, null];
        s.cards = cards;
        s.played = [];
        s.shown = [];
        s.bubble = null;
        s.mano = s.seat === ev.mano;
        s.dealer = s.seat === dealer;
      });
      this.open = { mano: this.narrator.who(ev.mano), start: this.step, before: ev.score.slice(), said: [], truco: w.not_called };
    } else if (t === "action") {
      var s = this.seats[ev.seat];
      var play = ev.action === "play" && ev.card;
      if (play) {
        var at = s.cards.indexOf(ev.card);
        if (at < 0) at = s.cards.indexOf(null);
        if (at >= 0) s.cards.splice(at, 1);
        s.played.push(ev.card);
      }
      s.bubble = {
        text: play ? (w.cards[ev.card] || ev.card) : (w.said[ev.action] || ev.action),
        say: ev.say || null,
        sena: ev.sena ? (w.senas[ev.sena] || ev.sena) : null,
        fault: decision && decision.fault ? decision.fault : null,
        latency: decision ? Math.floor(decision.latency_ms + 0.5) + " ms" : null
      };
      if (decision && decision.fault) s.faults += 1;
    } else if (t === "round_ended") {
      this.results.push(ev.winner == null ? "parda" : ctx.teams[ev.winner]);
      this.round = ev.round + 2;
    } else if (t === "envido_settled" || t === "flor_settled") {
      this.score = ev.score.slice();
      if (this.open) this.open.said.push((t === "envido_settled" ? "envido" : "flor") + ": " + ctx.teams[ev.winner] + ", " + this.tantos(ev.points));
    } else if (t === "truco_settled") {
      if (ev.querido) this.truco = ev.level;
      if (this.open) {
        var level = w.named[ev.level] || ev.level;
        this.open.truco = ev.querido ? level : fmt(w.not_wanted, { level: level });
      }
    } else if (t === "hand_ended") {
      this.score = ev.score.slice();
      (ev.shown || []).forEach(function (shown) { self.seats[shown.seat].shown = shown.cards.slice(); });
      this.closeRow(ev);
    } else if (t === "game_ended") {
      this.score = ev.score.slice();
      this.gameOver = true;
    }
    if (t !== "start_fault") {
      this.thisHand.push(ev);
      if (t === "hand_ended") this.summary = this.summarize(this.thisHand);
    }
    this.current = t === "action" ? ev.seat : null;
    var text = this.narrator.line(ev);
    this.caption = text;
    var points = null;
    if ((t === "envido_settled" || t === "flor_settled") || (t === "hand_ended" && ev.winner != null)) {
      points = "+" + ev.points + " " + this.narrator.teams[ev.winner];
    }
    var fault = decision && decision.fault ? decision.fault : (t === "start_fault" ? ev.fault : null);
    this.timeline.push({ step: this.step, hand: this.handIndex, kind: kindOf(ev, w), text: text,
      say: t === "action" && ev.say ? ev.say : null, points: points, fault: fault || null, type: t,
      seat: t === "action" ? ev.seat : null });
    return true;
  };

  Fold.prototype.tantos = function (n) { return fmt(this.w.tanto[n === 1 ? 0 : 1], { num: n }); };

  // the score by hand's row of a hand that ended (services/web/views/hands.py's hand_rows)
  Fold.prototype.closeRow = function (ev) {
    var open = this.open || { mano: "", start: this.step, before: [0, 0], said: [], truco: this.w.not_called };
    var won = ev.winner, points = ev.points, line;
    if (won == null) {
      var gained = [ev.score[0] - open.before[0], ev.score[1] - open.before[1]];
      won = gained[0] > gained[1] ? 0 : gained[1] > gained[0] ? 1 : null;
      points = won == null ? 0 : Math.max(gained[0], gained[1]);
      line = open.said.concat([this.w.ended_in_hand]).join(" · ");
    } else {
      line = open.said.concat(["truco: " + this.ctx.teams[won] + ", " + this.tantos(points) + " (" + open.truco + ")"]).join(" · ");
    }
    this.rows.push({ hand: ev.hand + 1, winner: won == null ? "—" : this.ctx.teams[won], summary: line, points: points,
      score: ev.score.slice(), step: open.start, end: this.step });
  };

  // what the hand came to (hand_summary.py)
  Fold.prototype.summarize = function (events) {
    var w = this.w, n = this.narrator, labels = this.ctx.teams;
    var end = null, start = null;
    events.forEach(function (e) {
      if (e.type === "hand_ended") end = e;
      if (e.type === "hand_started" && !start) start = e;
    });
    if (!end) return null;
    var before = start ? start.score : [0, 0];
    var gained = [end.score[0] - before[0], end.score[1] - before[1]];
    return {
      hand: end.hand + 1,
      title: fmt(w.summary.title, { n: end.hand + 1 }),
      lines: events.filter(function (e) { return SUMMARY_KINDS.indexOf(e.type) >= 0; }).map(function (e) { return n.line(e); }),
      shown: (end.shown || []).map(function (s) { return [n.who(s.seat), s.cards.slice()]; }),
      points: fmt(w.summary.points, { team0: labels[0], p0: gained[0], team1: labels[1], p1: gained[1] }),
      score: fmt(w.summary.score, { team0: labels[0], s0: end.score[0], team1: labels[1], s1: end.score[1] })
    };
  };

  Fold.prototype.info = function () {
    var w = this.w;
    var info = fmt(w.hand_n, { n: this.hand }) + " · " + fmt(w.round_n, { n: Math.min(this.round, 3) });
    return this.truco ? info + " · " + (w.named[this.truco] || this.truco) : info;
  };

  // the fold of events[0 .. the step-th step] (a replay's moment)
  function foldTo(ctx, w, events, step) {
    var fold = new Fold(ctx, w);
    for (var i = 0; i < events.length && fold.step < step; i++) fold.apply(events[i]);
    return fold;
  }

  // ------------------------------------------------------------------ drawing

  function botHtml(link) {
    return link.id != null ? '<a class="bot" href="/bots/' + esc(link.id) + '">' + esc(link.name) + "</a>"
      : '<span class="bot">' + esc(link.name) + "</span>";
  }

  function half(n, target, w) {
    return target > 15 ? '<span class="half">' + esc(n >= Math.floor(target / 2) ? w.buenas : w.malas) + "</span>" : "";
  }

  function scoreHtml(fold) {
    var ctx = fold.ctx, w = fold.w, s = fold.score, target = ctx.target;
    return '<span class="team t0"><span class="tname">' + esc(ctx.teams[0]) + "</span>" + fosforos(s[0], target, 0) +
      '<strong data-team="0" data-score>' + s[0] + "</strong>" + half(s[0], target, w) + "</span>" +
      '<span class="handinfo">' + esc(fold.info()) + "</span>" +
      '<span class="team t1">' + half(s[1], target, w) + '<strong data-team="1" data-score>' + s[1] + "</strong>" +
      fosforos(s[1], target, 1) + '<span class="tname">' + esc(ctx.teams[1]) + "</span></span>";
  }

  // opts.hand(seat, cards): the html of a seat's hand instead of the cards (/play: buttons);
  // opts.tag(seat): more html after the seat's name (/play: whose turn it is)
  function seatHtml(fold, s, opts) {
    var w = fold.w;
    var link = fold.ctx.seats[s.seat];
    var who = '<div class="who">' + botHtml(link) + ' <span class="seatno">' + esc(fmt(w.seat_n, { n: s.seat })) + "</span>" +
      (s.mano ? ' <span class="mano">mano</span>' : "") +
      (s.dealer ? ' <span class="dealer">' + esc(w.deals) + "</span>" : "") +
      (s.faults ? ' <span class="fault-tag" title="' + esc(w.faults_title) + '">⚠ ' + s.faults + "</span>" : "") +
      (opts && opts.tag ? opts.tag(s.seat) : "") + "</div>";
    var custom = opts && opts.hand ? opts.hand(s.seat, s.cards) : null;
    var hand = '<div class="hand">' + (custom !== null && custom !== undefined ? custom : s.cards.map(function (c) {
      return c ? cardSvg(c, w.cards[c]) : backSvg(w.hidden);
    }).join("")) + "</div>";
    var b = s.bubble, bubble = "";
    if (b) {
      var current = fold.current === s.seat;
      bubble = '<div class="bubble' + (current ? " current" : "") + (b.fault ? " faulty" : "") + '"><span class="word">' + esc(b.text) + "</span>" +
        (b.say ? '<q class="say">' + esc(b.say) + "</q>" : "") +
        (b.sena ? '<span class="sena">' + esc(w.sena) + " " + esc(b.sena) + "</span>" : "") +
        (b.fault ? '<span class="fault-tag">' + esc(w.fault) + " " + esc(w.faults[b.fault] || b.fault) + "</span>" : "") +
        (b.latency ? '<span class="lat">' + esc(b.latency) + "</span>" : "") + "</div>";
    }
    var shown = s.shown.length ? '<div class="shown">' + esc(w.shows) + " " + s.shown.map(function (c) {
      return cardSvg(c, w.cards[c], "mini");
    }).join("") + "</div>" : "";
    return who + hand + bubble + shown;
  }

  function feltHtml(fold) {
    var w = fold.w;
    var html = fold.seats.map(function (s) {
      return '<div class="played pos-' + esc(s.position) + '" data-seat="' + s.seat + '">' +
        s.played.map(function (c) { return cardSvg(c, w.cards[c], "played"); }).join("") + "</div>";
    }).join("");
    if (fold.results.length) {
      html += '<div class="rounds">' + fold.results.map(function (r, i) {
        return "<span>" + esc(fmt(w.r_n, { n: i + 1 }) + " " + cut(r, 16)) + "</span>";
      }).join("") + "</div>";
    }
    return html;
  }

  function summaryHtml(fold) {
    var sm = fold.summary, w = fold.w;
    if (!sm) return "";
    return '<h3 id="summary-title">' + esc(sm.title) + '</h3><ul class="summary-lines">' +
      sm.lines.map(function (l) { return "<li>" + esc(l) + "</li>"; }).join("") + "</ul>" +
      (sm.shown.length ? '<p class="summary-shown">' + sm.shown.map(function (s) {
        return '<span class="showed">' + esc(s[0]) + " " + s[1].map(function (c) { return cardSvg(c, w.cards[c], "mini"); }).join("") + "</span>";
      }).join("") + "</p>" : "") +
      '<p class="summary-points">' + esc(sm.points) + '</p><p class="summary-score">' + esc(sm.score) + "</p>" +
      '<p class="summary-extra" data-slot="extra" hidden></p>';
  }

  // the table's parts, drawn into the page's #score, #seat-N, #felt, #caption and #summary
  // (built first by buildTable where the server drew none: /play)
  function draw(fold, opts) {
    var score = document.getElementById("score");
    if (score) score.innerHTML = scoreHtml(fold);
    fold.seats.forEach(function (s) {
      var box = document.getElementById("seat-" + s.seat);
      if (box) box.innerHTML = seatHtml(fold, s, opts);
    });
    var felt = document.getElementById("felt");
    if (felt) felt.innerHTML = feltHtml(fold);
    var caption = document.getElementById("caption");
    if (caption && caption.textContent !== fold.caption) caption.textContent = fold.caption;
    var summary = document.getElementById("summary");
    if (summary && !(opts && opts.keepSummary)) {
      var html = summaryHtml(fold);
      var key = fold.summary ? fold.summary.hand + ":" + fold.summary.score : "";
      if (summary.getAttribute("data-hand") !== key) { // the same summary stays as it is
        summary.innerHTML = html;
        summary.setAttribute("data-hand", key);
      }
      summary.hidden = !fold.summary;
    }
  }

  // the seats and the felt where the server drew none (/play: the seating comes with the game)
  function buildTable(table, fold) {
    table.className = "table players-" + fold.ctx.players;
    table.innerHTML = fold.seats.map(function (s) {
      return '<div class="seat pos-' + esc(s.position) + " team" + s.team + '" id="seat-' + s.seat + '" data-seat="' + s.seat + '"></div>';
    }).join("") + '<div class="felt" id="felt"></div>';
  }

  // the hand's timeline (#timeline) up to the fold's step (or the whole hand: rest = the
  // events after it, shown as to come); link(step): a step's address, or null
  function drawTimeline(fold, opts) {
    var w = fold.w;
    var head = document.querySelector("#timeline h2");
    if (head) head.textContent = fmt(w.timeline, { n: fold.hand });
    var list = document.querySelector("#timeline ol.timeline");
    if (!list) return;
    var items = fold.timeline.filter(function (it) { return it.hand === fold.handIndex; });
    if (opts && opts.rest) items = items.concat(opts.rest.filter(function (it) { return it.hand === fold.handIndex; }));
    list.innerHTML = items.map(function (it) {
      var href = opts && opts.link ? opts.link(it.step) : null;
      var text = href ? '<a href="' + esc(href) + '">' + esc(it.text) + "</a>" : "<span>" + esc(it.text) + "</span>";
      return '<li class="ev ev-' + esc(it.kind) + (it.step > fold.step ? " future" : "") + (it.step === fold.step ? " current" : "") +
        (it.fault ? " faulty" : "") + '" data-step="' + it.step + '"' + (it.seat !== null ? ' data-seat="' + it.seat + '"' : "") + ">" + text +
        (it.points ? ' <span class="pts">' + esc(cut(it.points, 30)) + "</span>" : "") +
        (it.fault ? ' <span class="fault-tag">' + esc(w.fault) + " " + esc(w.faults[it.fault] || it.fault) + "</span>" : "") +
        (it.say ? '<q class="say">' + esc(it.say) + "</q>" : "") + "</li>";
    }).join("");
    var item = list.querySelector("li.current");
    if (item) list.scrollTop = Math.max(0, item.offsetTop - list.offsetTop - list.clientHeight / 2);
  }

  // the score by hand (#hands): the rows of the hands over (rows: all of them, for "whole")
  function drawHands(fold, opts) {
    var body = document.querySelector("#hands tbody");
    if (!body) return;
    var label = fold.w.score;
    var rows = opts && opts.rows ? opts.rows : fold.rows;
    body.innerHTML = rows.map(function (h) {
      var href = opts && opts.link ? opts.link(h.step) : null;
      return "<tr" + (h.hand === fold.hand ? ' class="on"' : "") + '><td class="num">' +
        (href ? '<a href="' + esc(href) + '">' + h.hand + "</a>" : String(h.hand)) + '</td><td class="name">' +
        esc(cut(h.winner, 20)) + '<span class="summary">' + esc(h.summary) + '</span></td><td class="num" data-label="+">' +
        h.points + '</td><td class="num" data-label="' + esc(label) + '" data-score>' + h.score[0] + "-" + h.score[1] + "</td></tr>";
    }).join("");
  }

  // ------------------------------------------------------------------ pacing

  // Shows queued events one at a time, so that a bot's card, its truco and the envido points
  // it declares are each seen, in order: stepMs between two events, a hand's summary held
  // until release() (hold: "person") or holdMs (a spectator). A spectator too far behind (a
  // fast live match: a whole hand waiting after the one being shown) catches up: the hands
  // before the last are applied at once.
  function Pacer(show, opts) {
    this.show = show; // show(item, quiet): apply and draw one item (quiet: do not draw)
    this.stepMs = opts.stepMs;
    this.holdMs = opts.holdMs;
    this.hold = opts.hold; // "person": a summary waits for release()
    this.catchUp = !!opts.catchUp;
    this.items = [];
    this.timer = null;
    this.held = false;
    this.onIdle = opts.onIdle || null;
    this.onHold = opts.onHold || null;
  }

  function typeOf(item) { return (item.event || item).type; }

  Pacer.prototype.push = function (items) {
    for (var i = 0; i < items.length; i++) this.items.push(items[i]);
    if (this.catchUp) this.skipStale();
    if (!this.timer && !this.held) this.pump();
  };

  // while two hand ends wait, the first hand is applied at once (up to the next hand's deal)
  Pacer.prototype.skipStale = function () {
    for (;;) {
      var ends = [], i;
      for (i = 0; i < this.items.length; i++) if (typeOf(this.items[i]) === "hand_ended") ends.push(i);
      if (ends.length < 2) return;
      var upto = ends[0] + 1;
      while (upto < this.items.length && typeOf(this.items[upto]) !== "hand_started") upto++;
      var quick = this.items.splice(0, upto);
      for (var k = 0; k < quick.length; k++) this.show(quick[k], true);
      if (this.timer) { window.clearTimeout(this.timer); this.timer = null; }
    }
  };

  Pacer.prototype.pump = function () {
    var self = this;
    this.timer = null;
    while (this.items.length && !this.held) {
      var item = this.items.shift();
      var kind = this.show(item, false);
      if (kind === "decision") continue; // not a step: nothing new to see
      if (kind === "hand_ended") {
        if (this.hold === "person") {
          this.held = true;
          if (this.onHold) this.onHold();
          return;
        }
        this.timer = window.setTimeout(function () { self.pump(); }, this.holdMs);
        return;
      }
      if (this.items.length) {
        this.timer = window.setTimeout(function () { self.pump(); }, this.stepMs);
        return;
      }
    }
    if (!this.items.length && !this.held && this.onIdle) this.onIdle();
  };

  // everything waiting applied at once (the person left: nothing more to wait for)
  Pacer.prototype.flush = function () {
    if (this.timer) { window.clearTimeout(this.timer); this.timer = null; }
    var items = this.items.splice(0);
    for (var i = 0; i < items.length; i++) this.show(items[i], true);
    this.held = false;
    if (this.onIdle) this.onIdle();
  };

  Pacer.prototype.release = function () {
    if (!this.held) return;
    this.held = false;
    this.pump();
  };

  Pacer.prototype.idle = function () { return !this.items.length && !this.held && !this.timer; };

  // ------------------------------------------------------------------ the page's words

  function pageWords() {
    var node = document.getElementById("table-words");
    if (!node) return null;
    try { return JSON.parse(node.getAttribute("data-words")); } catch (e) { return null; }
  }

  function reducedMotion() {
    return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  }

  window.TrucoTable = {
    esc: esc,
    fmt: fmt,
    cut: cut,
    cardSvg: cardSvg,
    backSvg: backSvg,
    fosforos: fosforos,
    Narrator: Narrator,
    Fold: Fold,
    foldTo: foldTo,
    draw: draw,
    buildTable: buildTable,
    drawTimeline: drawTimeline,
    drawHands: drawHands,
    Pacer: Pacer,
    pageWords: pageWords,
    reducedMotion: reducedMotion
  };
})();
