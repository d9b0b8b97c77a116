/* seka-arena replay viewer: steps through the JSON a replay page embeds (id "replay-data").
 * The page's data already holds only what its reader may see (a seat's view is redacted when the
 * report is written); this script only shows one step at a time. No framework, no network.
 * Keys: ArrowRight / ArrowLeft a step, PageDown / PageUp a pot, Home / End the first or last step.
 * The step is kept in the address (#step-N), so a link can point at any moment of a session. */
(function () {
  "use strict";
  var source = document.getElementById("replay-data");
  if (!source) { return; }
  // A live page (the service's, data-live: its event stream) starts empty and grows as the session is played.
  var live = source.getAttribute("data-live");
  var data = JSON.parse(source.textContent);
  var steps = data ? data.steps : [];
  var suits = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
  var suitNames = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
  var rankNames = { "6": "six", "7": "seven", "8": "eight", "9": "nine", T: "ten", J: "jack", Q: "queen",
    K: "king", A: "ace" };
  var index = 0;

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function cardNode(card) {
    var node = element("span", "card" + (card[1] === "h" || card[1] === "d" ? " red" : ""),
      (card[0] === "T" ? "10" : card[0]) + (suits[card[1]] || card[1]));
    node.title = (rankNames[card[0]] || card[0]) + " of " + (suitNames[card[1]] || card[1]);
    return node;
  }

  function dealStart(at) {
    var start = at;
    while (start > 0 && steps[start].kind !== "deal") { start -= 1; }
    return start;
  }

  function renderSeats(step) {
    var list = document.getElementById("seats");
    list.textContent = "";
    data.bots.forEach(function (bot, seat) {
      var hand = data.hand_sets[step.hands][seat];
      var item = element("li", "seat");
      item.setAttribute("data-seat", String(seat));
      if (step.actor === seat) { item.classList.add("acting"); }
      if (hand && hand.folded) { item.classList.add("folded"); }
      if (data.view === seat) { item.classList.add("own"); }
      var name = element("p", "seat-name");
      name.appendChild(element("strong", "", bot));
      name.appendChild(document.createTextNode(" seat " + seat));
      if (step.dealer === seat) { name.appendChild(element("span", "badge", "dealer")); }
      if (data.view === seat) { name.appendChild(element("span", "badge", "you")); }
      if (hand && hand.dark) { name.appendChild(element("span", "badge", "dark: has not looked")); }
      item.appendChild(name);
      var balance = element("p", "balance");
      balance.appendChild(document.createTextNode("balance "));
      balance.appendChild(element("strong", "amount", step.balances[seat]));
      if (step.stacks) {
        balance.appendChild(document.createTextNode(", stack "));
        balance.appendChild(element("strong", "stack", step.stacks[seat]));
      }
      item.appendChild(balance);
      var cards = element("p", "cards");
      if (!hand) {
        cards.appendChild(element("span", "muted", "not in this deal"));
      } else if (hand.cards === null) {
        cards.appendChild(element("span", "hidden-cards", "three cards, unseen"));
      } else {
        hand.cards.forEach(function (card, at) {
          if (at) { cards.appendChild(document.createTextNode(" ")); }
          cards.appendChild(cardNode(card));
        });
        if (hand.value !== null) {
          cards.appendChild(document.createTextNode(" "));
          cards.appendChild(element("span", "value", hand.value));
        }
      }
      item.appendChild(cards);
      var status = [];
      if (hand && hand.folded) { status.push("folded"); }
      if (hand && hand.fault) { status.push("fault: " + hand.fault); }
      item.appendChild(element("p", "status", status.join(", ")));
      list.appendChild(item);
    });
  }

  function renderLog(at) {
    var log = document.getElementById("deal-log");
    log.textContent = "";
    for (var i = dealStart(at); i <= at; i += 1) {
      var item = element("li", steps[i].fault ? "fault" : "");
      var link = element("a", "", steps[i].text);
      link.href = "#viewer";
      link.setAttribute("data-step", String(i + 1));
      item.value = i + 1;
      if (i === at) { link.setAttribute("aria-current", "step"); }
      item.appendChild(link);
      log.appendChild(item);
    }
    log.scrollTop = log.scrollHeight;  // the current step is the last one: keep it in sight
  }

  function moveMarker(step) {
    var marker = document.getElementById("curve-marker");
    if (!marker) { return; }
    var svg = marker.ownerSVGElement;
    var x0 = Number(svg.getAttribute("data-x0"));
    var dx = Number(svg.getAttribute("data-dx"));
    // Between the points of the pot before and of this pot while it is played; on the point once won.
    var done = step.kind === "pot_won" || step.kind === "session_end";
    var x = x0 + dx * Math.max(step.pot_number - (done ? 0 : 0.5), 0);
    marker.setAttribute("x1", String(x));
    marker.setAttribute("x2", String(x));
  }

  function render() {
    var step = steps[index];
    if (!step) { return; }
    var where = "Step " + (index + 1) + " of " + steps.length;
    if (step.pot_number) {
      where += " \u00b7 pot " + step.pot_number + " of " + data.table.pots;
      if (step.replay) { where += " \u00b7 svara replay " + step.replay; }
    }
    document.getElementById("position").textContent = where;
    var text = document.getElementById("step-text");
    text.textContent = step.text;
    text.classList.toggle("fault", Boolean(step.fault));
    var cost = document.getElementById("step-cost");
    if (step.cost) {
      var said = "Decided in " + step.cost.wall_ms.toFixed(1) + " ms";
      if (step.cost.cpu_ms !== null) { said += ", " + step.cost.cpu_ms.toFixed(1) + " ms of its CPU"; }
      if (step.cost.timeout === "bot") { said += " \u00b7 timed out: its own time ran out"; }
      if (step.cost.timeout === "arena") { said += " \u00b7 timed out: the arena held it up past the grace"; }
      cost.textContent = said;
    } else {
      cost.textContent = "";
    }
    document.getElementById("pot-amount").textContent = step.pot;
    // A stake table's current stake: the table stake at each deal, then each raise's (none on other tables).
    document.getElementById("stake-line").hidden = step.stake === undefined;
    document.getElementById("stake-amount").textContent = step.stake === undefined ? "" : step.stake;
    document.getElementById("step-number").value = String(index + 1);
    renderSeats(step);
    renderLog(index);
    moveMarker(step);
  }

  function go(target, remember) {
    index = Math.max(0, Math.min(steps.length - 1, target));
    render();
    if (remember && location.hash !== "#step-" + (index + 1)) {
      location.replace("#step-" + (index + 1));
    }
  }

  function potStart(direction) {
    var current = dealStart(index);
    while (current > 0 && steps[current].replay > 0) { current = dealStart(current - 1); }
    if (direction < 0) {
      if (index !== current) { return current; }
      if (current === 0) { return 0; }
      var previous = dealStart(current - 1);
      while (previous > 0 && steps[previous].replay > 0) { previous = dealStart(previous - 1); }
      return previous;
    }
    for (var i = index + 1; i < steps.length; i += 1) {
      if (steps[i].kind === "deal" && steps[i].replay === 0) { return i; }
    }
    return steps.length - 1;
  }

  var actions = {
    first: function () { return 0; },
    last: function () { return steps.length - 1; },
    next: function () { return index + 1; },
    previous: function () { return index - 1; },
    "next-pot": function () { return potStart(1); },
    "previous-pot": function () { return potStart(-1); }
  };
  var keys = { ArrowRight: "next", ArrowLeft: "previous", Home: "first", End: "last", PageDown: "next-pot",
    PageUp: "previous-pot" };

  document.querySelectorAll("[data-go]").forEach(function (button) {
    button.addEventListener("click", function () { go(actions[button.getAttribute("data-go")](), true); });
  });
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT");
    if (typing || event.altKey || event.ctrlKey || event.metaKey || !keys[event.key]) { return; }
    event.preventDefault();
    go(actions[keys[event.key]](), true);
  });
  document.getElementById("step-number").addEventListener("change", function (event) {
    var wanted = parseInt(event.target.value, 10);
    if (!isNaN(wanted)) { go(wanted - 1, true); }
  });
  // Links to a step (the pots and faults tables, this deal's log) carry it in data-step and point
  // at the viewer, so they work as plain links too; the address then keeps the step (#step-N).
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[data-step]") : null;
    if (!link) { return; }
    event.preventDefault();
    go(parseInt(link.getAttribute("data-step"), 10) - 1, true);
    document.getElementById("viewer").scrollIntoView();
  });
  // #step-N is a step; #pot-N (the row of the pots table, which the duplicate block's table links
  // to) is the first step of pot N; #record-N the step of the history's record N (its line N, as each
  // step's `record` counts them), which the organisers' collusion report links to.
  function fromHash() {
    if (!data) { return; }
    var step = /^#step-(\d+)$/.exec(location.hash);
    var pot = /^#pot-(\d+)$/.exec(location.hash);
    var record = /^#record-(\d+)$/.exec(location.hash);
    if (step) { go(parseInt(step[1], 10) - 1, false); }
    if (record) {
      var wanted = parseInt(record[1], 10);
      var found = data.steps.findIndex(function (entry) { return entry.record === wanted; });
      if (found >= 0) { go(found, false); }
    }
    if (pot) {
      data.pots.forEach(function (entry) {
        if (entry.pot === parseInt(pot[1], 10)) { go(entry.step, false); }
      });
      document.getElementById("viewer").scrollIntoView();
    }
  }
  window.addEventListener("hashchange", fromHash);
  // The live page's feed: each `update` is the whole view so far (the spectator's), `end` the stored
  // history's. The viewer follows the last step unless the reader went back to an earlier one.
  function follow(url) {
    var status = document.getElementById("live-status");
    var feed = new EventSource(url);
    function show(message, text) {
      var following = steps.length === 0 || index >= steps.length - 1;
      data = JSON.parse(message.data) || data;
      steps = data ? data.steps : [];
      document.getElementById("step-count").textContent = String(steps.length);
      document.getElementById("step-number").max = String(steps.length);
      go(following ? steps.length - 1 : index, false);
      status.textContent = text;
    }
    feed.addEventListener("update", function (message) { show(message, "playing: live"); });
    feed.addEventListener("end", function (message) {
      feed.close();
      show(message, "session over: its replay is on its page");
    });
    feed.addEventListener("gone", function () {
      feed.close();
      status.textContent = "no longer played (the service stopped it): it is played again from its start later";
    });
    feed.onerror = function () { if (feed.readyState !== EventSource.CLOSED) { status.textContent = "reconnecting…"; } };
  }

  if (live) {
    follow(live);
  } else {
    go(0, false);
    fromHash();
  }
}());
