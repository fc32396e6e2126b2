// Progressive enhancement only: every page works without this file.
// Adds: "/" to focus the search box, suggestions as you type (the ARIA 1.2 combobox pattern),
// filters that apply as soon as a box is ticked, and an announcement of the result count.
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");
  var FOCUS_KEY = "topichub-focus";

  // "/" focuses the search box from anywhere but another text field.
  document.addEventListener("keydown", function (event) {
    var box = document.getElementById("q");
    var active = document.activeElement;
    var typing = active && (/^(TEXTAREA|SELECT)$/.test(active.tagName) || active.isContentEditable ||
      (active.tagName === "INPUT" && !/^(checkbox|radio|button|submit|reset)$/.test(active.type)));
    if (event.key === "/" && box && active !== box && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      box.focus();
      box.select();
    }
  });

  // Filters apply as soon as a box is ticked; focus returns to the same box on the new page.
  // The form goes to its address without empty fields: a search without dates sends no since= or until=.
  function sendFilters(form) {
    var data = new URLSearchParams();
    new FormData(form).forEach(function (value, name) {
      if (value !== "") { data.append(name, value); }
    });
    var query = data.toString();
    busy(true);
    window.location.assign((form.getAttribute("action") || "/") + (query ? "?" + query : ""));
  }
  // While the next page is asked for, the results say they are being replaced (dimmed, and
  // aria-busy for a screen reader): a tick on a slow answer changed nothing for seconds, the old
  // results shown under the new filters (a QA pass).
  function busy(on) {
    var results = document.getElementById("main");
    if (!results) { return; }
    if (on) { results.setAttribute("aria-busy", "true"); } else { results.removeAttribute("aria-busy"); }
  }
  document.querySelectorAll("form.searchbox").forEach(function (form) {
    form.addEventListener("submit", function () { busy(true); });
  });
  document.querySelectorAll(".facet-form").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      // After "Apply dates" focus comes back to the dates (it was left on the page, some 50 stops away).
      if (event.submitter && event.submitter.closest(".dates")) {
        try { sessionStorage.setItem(FOCUS_KEY, "dates\u0000"); } catch (e) { /* storage off */ }
      }
      sendFilters(form);
    });
    // From no later than Until, and Until no earlier than From, as they are typed: the browser says so
    // beside the field, where a reversed pair went to an error page (the server's min and max only
    // held when one bound was already in the address).
    var since = form.querySelector("input[name=since]");
    var until = form.querySelector("input[name=until]");
    if (since && until && since.type === until.type) {
      var bound = function () {
        until.min = since.value;
        since.max = until.value;
      };
      since.addEventListener("input", bound);
      until.addEventListener("input", bound);
    }
  });
  // Back to a page: its boxes and dates as its address says, not as they were left (Chromium puts
  // back the values of the page's last visit, and the next tick then applied a filter undone).
  window.addEventListener("pageshow", function () {
    // Back from the back/forward cache shows the page as it was left: the box holds what was typed
    // next, above results for what it said.  It says what the results are for again.
    var q = document.getElementById("q");
    if (q) { q.value = q.defaultValue; }
    busy(false);
    document.querySelectorAll(".facet-form input").forEach(function (input) {
      if (input.type === "checkbox") {
        input.checked = input.defaultChecked;
      } else if (input.type === "date" || input.type === "datetime-local") {
        input.value = input.defaultValue;
      }
    });
  });
  // Whether the last filter was ticked by pointer (a tap, a click) or by the keyboard: a tap on a phone,
  // where the filters are under the results, came back to the page scrolled down to the box, the results
  // out of sight (a QA pass).  Focus still returns to the box; only the keyboard's scrolls to it.
  var pointed = false;
  document.addEventListener("pointerdown", function () { pointed = true; }, true);
  document.addEventListener("keydown", function () { pointed = false; }, true);
  document.querySelectorAll(".facet-form input[type=checkbox]").forEach(function (box) {
    box.addEventListener("change", function () {
      // Dates the browser holds as wrong (Until before From, half typed) are said beside them, as they are
      // on "Apply dates": a tick sent them anyway, to the error page.  The tick waits, and goes with them.
      if (box.form.checkValidity && !box.form.checkValidity()) {
        box.form.reportValidity();
        return;
      }
      try { sessionStorage.setItem(FOCUS_KEY, box.name + "\u0000" + box.value + "\u0000" + (pointed ? "pointer" : "")); } catch (e) { /* storage off */ }
      sendFilters(box.form);
    });
  });
  var wanted = null;
  try { wanted = sessionStorage.getItem(FOCUS_KEY); sessionStorage.removeItem(FOCUS_KEY); } catch (e) { /* storage off */ }
  if (wanted) {
    var parts = wanted.split("\u0000");
    var dates = parts[0] === "dates" ? document.querySelector(".facet-form .dates button[type=submit]") : null;
    if (dates) { dates.focus(); }
    document.querySelectorAll(".facet-form input[type=checkbox]").forEach(function (box) {
      if (box.name === parts[0] && box.value === parts[1]) {
        var details = box.closest("details");
        if (details) { details.open = true; }
        box.focus({ preventScroll: parts[2] === "pointer" });
      }
    });
  }

  // Announce the result count once the page has settled (a live region only speaks on change).
  // The visible summary is a live region too, for pages updated in place; this one speaks on load.
  var summary = document.getElementById("summary");
  if (summary) {
    var announce = document.createElement("div");
    announce.id = "announce";
    announce.className = "visually-hidden";
    announce.setAttribute("role", "status");
    announce.setAttribute("aria-live", "polite");
    document.body.appendChild(announce);
    // What is hidden from screen readers ("in 3 ms") is not read out here either.
    var spoken = summary.cloneNode(true);
    spoken.querySelectorAll("[aria-hidden=true]").forEach(function (node) { node.remove(); });
    window.setTimeout(function () { announce.textContent = spoken.textContent.replace(/\s+/g, " ").trim(); }, 300);
  }

  // A document opened from a search leads back to that search: its "All results" went to the home
  // page, the reader's query and filters lost (Back kept them; a QA pass).  Same-origin referrers only.
  // A link of its own before the breadcrumb, which stays the place's: the crumb rewritten read
  // "Results for “trainium deal” › Training Infrastructure", the topic under the search (a visual pass).
  var crumbs = document.querySelector("nav.crumbs");
  if (crumbs && document.referrer) {
    try {
      var from = new URL(document.referrer);
      if (from.origin === window.location.origin && from.pathname === "/" && from.search) {
        var asked = (from.searchParams.get("q") || "").trim();
        var filtered = ["topic", "entity", "kind", "month", "since", "until"].some(function (name) { return from.searchParams.has(name); });
        var back = document.createElement("p");
        back.className = "back";
        var link = document.createElement("a");
        link.href = from.pathname + from.search;
        link.textContent = "\u2190 Back to " + (asked ? "results for \u201c" + asked + "\u201d" : "your results") +
          (filtered ? (asked ? " with your filters" : "") : "");
        back.appendChild(link);
        crumbs.parentNode.insertBefore(back, crumbs);
      }
    } catch (e) { /* no URL support: no way back but the browser's */ }
  }

  setUpSuggestions(document.getElementById("q"));

  function setUpSuggestions(box) {
    if (!box || !window.fetch) { return; }
    var form = box.form;
    var combo = box.parentNode;
    var list = document.createElement("ul");
    list.id = "q-suggestions";
    list.className = "suggestions";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Suggestions");
    list.tabIndex = -1;  // a list long enough to scroll took Tab from the box, then closed under it (focus lost)
    list.hidden = true;
    combo.appendChild(list);
    var status = document.createElement("div");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    status.id = "q-status";
    combo.appendChild(status);
    box.setAttribute("role", "combobox");
    box.setAttribute("aria-autocomplete", "list");
    box.setAttribute("aria-expanded", "false");
    box.setAttribute("aria-controls", list.id);

    var items = [];
    var active = -1;
    var timer = 0;
    var seq = 0;
    var controller = null;
    var shownFor = null;  // the text the options shown are for: they are no choice for any other text

    // What is asked for the text in the box: a space typed after the last word is sent, as that word
    // is then whole ("the " is not "theoretical").
    function asked() {
      var typed = box.value.trim();
      return typed && /\s$/.test(box.value) ? typed + " " : typed;
    }

    // The page's filters, as its form keeps them for the next search (hidden fields): suggestions are
    // asked for under them, so that each finds something there ("ana" on the data centers topic's page
    // offered "analysis", which no page of it says).  Sort and page size change no suggestion: not sent.
    var FILTERS = ["topic", "entity", "kind", "month", "since", "until"];
    function filters() {
      var kept = new URLSearchParams();
      form.querySelectorAll("input[type=hidden]").forEach(function (input) {
        if (FILTERS.indexOf(input.name) >= 0 && input.value !== "") { kept.append(input.name, input.value); }
      });
      var query = kept.toString();
      return query ? "&" + query : "";
    }

    // A reply on its way is for text no longer in the box: it is not drawn.
    function cancel() {
      seq++;
      window.clearTimeout(timer);
      if (controller) { controller.abort(); controller = null; }
    }
    var KINDS = { title: "Go to", organisation: "Organisation", topic: "Topic", term: "Search" };

    function close() {
      highlight(-1);
      list.hidden = true;
      box.setAttribute("aria-expanded", "false");
      status.textContent = "";  // "8 suggestions…" is no longer true once the list is closed
    }
    // Back from the back/forward cache: the list left open over the page it led away from is closed,
    // and an ask left waiting (Enter pressed within the pause after a keystroke) is not made then: the
    // cache kept its timer, and Back opened the list over the results (a flaky test on a loaded machine).
    window.addEventListener("pagehide", cancel);
    window.addEventListener("pageshow", function (event) { if (event.persisted) { cancel(); close(); } });

    function highlight(index) {
      var options = list.children;
      for (var i = 0; i < options.length; i++) {
        options[i].setAttribute("aria-selected", i === index ? "true" : "false");
      }
      active = index;
      if (index >= 0) {
        box.setAttribute("aria-activedescendant", options[index].id);
        options[index].scrollIntoView({ block: "nearest" });
      } else {
        box.removeAttribute("aria-activedescendant");
      }
    }

    function choose(item) {
      close();
      if (item.url && (item.kind === "topic" || item.kind === "organisation")) {
        // A filter: added to the filters (and order) already chosen, as the hint says they are kept.
        var chosen = new URLSearchParams();
        form.querySelectorAll("input[type=hidden]").forEach(function (input) { chosen.append(input.name, input.value); });
        new URLSearchParams(item.url.split("?")[1] || "").forEach(function (value, name) {
          if (chosen.getAll(name).indexOf(value) < 0) { chosen.append(name, value); }
        });
        window.location.assign("/?" + chosen.toString());
      } else if (item.url) {
        window.location.assign(item.url);
      } else {
        box.value = item.text;
        form.submit();
      }
    }

    function markPrefix(li, text, typed) {
      // Bold the typed part where it starts a word: built with DOM nodes, never with HTML strings.
      // Each character lower-cased on its own, kept where that changes its length ("İ" is "i̇"), so
      // that a place in the lower-cased text is the same place in the text.
      var lower = Array.from(text, function (c) { var l = c.toLowerCase(); return l.length === c.length ? l : c; }).join("");
      function wordStart(needle) {
        var at = lower.indexOf(needle);
        while (at > 0 && /\w/.test(lower.charAt(at - 1))) { at = lower.indexOf(needle, at + 1); }
        return at;
      }
      // The words typed, without the marks of the syntax around them ('"open', "+stargate", "open*").
      var needle = typed.toLowerCase().replace(/["()+*]/g, " ").replace(/\s+/g, " ").trim();
      var at = needle ? wordStart(needle) : -1;
      // The typed words side by side, else each where it starts a word ("stargate mi" in "Expanding
      // Stargate to Michigan", a title holding them apart): [start, end] pairs, in order, not overlapping.
      var spans = at >= 0 ? [[at, at + needle.length]] : [];
      if (at < 0 && needle.indexOf(" ") > 0) {
        needle.split(" ").forEach(function (word) {
          var start = word ? wordStart(word) : -1;
          if (start >= 0 && !spans.some(function (s) { return start < s[1] && s[0] < start + word.length; })) {
            spans.push([start, start + word.length]);
          }
        });
        spans.sort(function (a, b) { return a[0] - b[0]; });
      }
      var pos = 0;
      spans.forEach(function (span) {
        li.appendChild(document.createTextNode(text.slice(pos, span[0])));
        var b = document.createElement("b");
        b.textContent = text.slice(span[0], span[1]);
        li.appendChild(b);
        pos = span[1];
      });
      li.appendChild(document.createTextNode(text.slice(pos)));
    }

    function render(typed, suggestions) {
      items = suggestions;
      list.textContent = "";
      suggestions.forEach(function (item, i) {
        var li = document.createElement("li");
        li.id = "q-option-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        var text = document.createElement("span");
        text.className = "s-text";
        text.dir = "auto";  // a completion in Arabic or Hebrew reads right to left
        markPrefix(text, item.text, typed);
        var kind = document.createElement("span");
        kind.className = "s-kind";
        kind.textContent = KINDS[item.kind] || item.kind;
        // Heard apart from the text: a screen reader read "stargate Michigan Search" as one phrase (a QA pass).
        var pause = document.createElement("span");
        pause.className = "visually-hidden";
        pause.textContent = ", ";
        li.appendChild(text);
        li.appendChild(pause);
        li.appendChild(kind);
        li.addEventListener("mousedown", function (event) { event.preventDefault(); });
        li.addEventListener("click", function () { choose(item); });
        list.appendChild(li);
      });
      // A new list has no option chosen: the box no longer points at one (a screen reader named the old one).
      highlight(-1);
      if (suggestions.length) {
        list.hidden = false;
        box.setAttribute("aria-expanded", "true");
        status.textContent = suggestions.length + (suggestions.length === 1 ? " suggestion" : " suggestions") +
          ". Use the up and down arrows to choose.";
      } else {
        close();
        status.textContent = "";
      }
    }

    function fetchSuggestions() {
      var typed = box.value.trim();
      var sent = asked();
      cancel();
      var mine = seq;
      // Past what search as you type reads (the page says how much), nothing is asked: each keystroke
      // was a request the API refused (a 400 in the console; a QA pass).
      if (!typed || typed.length > Number(box.getAttribute("data-suggest-max") || Infinity)) { render("", []); return; }
      controller = window.AbortController ? new AbortController() : null;
      fetch("/api/suggest?q=" + encodeURIComponent(sent) + filters(), {
        headers: { Accept: "application/json" },
        signal: controller ? controller.signal : undefined
      }).then(function (response) {
        return response.ok ? response.json() : { suggestions: [] };
      }).then(function (data) {
        if (mine === seq && document.activeElement === box && asked() === sent) {
          render(typed, data.suggestions || []);
          shownFor = sent;
        }
      }).catch(function () { /* aborted or offline: the form still submits */ });
    }

    box.addEventListener("input", function () {
      highlight(-1);  // the option chosen was for the words before: Enter now searches what is typed
      cancel();  // a reply to the words before, still on its way, is not drawn (a QA pass)
      timer = window.setTimeout(fetchSuggestions, 150);
    });

    box.addEventListener("keydown", function (event) {
      var open = !list.hidden && items.length > 0;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        // Options shown for other text (typed on, Back, Escape that emptied the box) are no choice:
        // the arrows asked for this text's (Enter picked "stargate Michigan" under "stargate"; a QA pass).
        if (shownFor !== asked()) {
          close();
          fetchSuggestions();
          event.preventDefault();
          return;
        }
        if (!open) {
          if (items.length) { list.hidden = false; box.setAttribute("aria-expanded", "true"); }
          else { fetchSuggestions(); }
          event.preventDefault();
          return;
        }
        event.preventDefault();
        var step = event.key === "ArrowDown" ? 1 : -1;
        var next = active + step;
        if (next >= items.length) { next = -1; }
        if (next < -1) { next = items.length - 1; }
        highlight(next);
      } else if (event.key === "Enter") {
        if (open && active >= 0) {
          event.preventDefault();
          choose(items[active]);
        }
      } else if (event.key === "Escape") {
        cancel();  // a reply on its way opened the list after Escape (a QA pass)
        if (open) {
          event.preventDefault();
          close();
        } else if (box.value) {
          event.preventDefault();
          box.value = "";
        }
      }
    });

    box.addEventListener("blur", function () { window.setTimeout(close, 100); });
  }
})();
