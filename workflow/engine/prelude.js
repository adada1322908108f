(function (g, natives) {
  "use strict";
  const D = g.Date;
  const refuse = (what) => () => {
    throw new Error(what + " is not allowed in a workflow: a resumed run must see the same values. Pass times and seeds in through args.");
  };
  function SafeDate(...a) {
    if (!new.target) refuse("Date() without new")();
    if (a.length === 0) refuse("new Date() without arguments")();
    return Reflect.construct(D, a, new.target);
  }
  SafeDate.prototype = D.prototype;
  Object.defineProperty(D.prototype, "constructor", { value: SafeDate, writable: true, configurable: true });
  SafeDate.UTC = D.UTC;
  SafeDate.parse = D.parse;
  SafeDate.now = refuse("Date.now()");
  Object.defineProperty(g, "Date", { value: SafeDate, writable: false, configurable: false });
  Object.defineProperty(g.Math, "random", { value: refuse("Math.random()"), writable: false, configurable: false });

  const items = (xs, fn) => {
    if (!Array.isArray(xs)) throw new TypeError(fn + " takes an array as its first argument, got " + typeof xs);
    natives.checkItems(xs.length, fn);
  };
  const settle = (p, what) => p.then((v) => v, (e) => { natives.failed(what, String(e && e.stack || e)); return null; });

  g.parallel = function parallel(thunks) {
    items(thunks, "parallel");
    return Promise.all(thunks.map((t, i) =>
      settle(Promise.resolve().then(() => (typeof t === "function" ? t() : t)), "parallel item " + i)));
  };
  g.pipeline = function pipeline(list, ...stages) {
    items(list, "pipeline");
    stages.forEach((s, i) => {
      if (typeof s !== "function") throw new TypeError("pipeline stage " + (i + 1) + " is not a function");
    });
    return Promise.all(list.map((item, index) => settle((async () => {
      let prev = item;
      for (const s of stages) prev = await s(prev, item, index);
      return prev;
    })(), "pipeline item " + index)));
  };
  g.budget = Object.freeze({
    total: natives.budgetTotal(),
    spent: () => natives.budgetSpent(),
    remaining: () => natives.budgetRemaining(),
  });
})
