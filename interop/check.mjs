// check.mjs prints checks the way interop/run counts them: one line per
// check, "PASS label: what" or "FAIL label: what: why". Every client check
// uses it.

// checker returns check, which runs one check whose function throws to fail
// it and tells whether it passed; all, which runs a list of checks, [what,
// fn] pairs, at most limit at once, and prints their lines in the list's
// order; and failed, which tells whether any check has failed.
export function checker(label) {
  let failures = 0;
  const print = (what, err) => {
    if (!err) {
      console.log(`PASS ${label}: ${what}`);
      return true;
    }
    failures++;
    // A child process that failed (execFile) says why on its stderr.
    console.log(`FAIL ${label}: ${what}: ${err.stderr?.trim() || err.message}`);
    return false;
  };
  const run = async (fn) => {
    try {
      await fn();
      return null;
    } catch (err) {
      return err;
    }
  };
  return {
    check: async (what, fn) => print(what, await run(fn)),
    async all(list, limit) {
      const errs = [];
      let next = 0;
      const worker = async () => {
        while (next < list.length) {
          const i = next++;
          errs[i] = await run(list[i][1]);
        }
      };
      await Promise.all(Array.from({ length: Math.min(limit, list.length) }, worker));
      return list.map(([what], i) => print(what, errs[i])).every(Boolean);
    },
    failed: () => failures > 0,
  };
}

// expect throws message unless cond holds.
export function expect(cond, message) {
  if (!cond) throw new Error(message);
}
