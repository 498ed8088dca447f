// check.mjs prints checks the way interop/run counts them: one line per
// check, "PASS label: what" or "FAIL label: what: why". Every client check
// uses it.

// checker returns check, which runs one check whose function throws to fail
// it, and failed, which tells whether any check has failed.
export function checker(label) {
  let failures = 0;
  return {
    async check(what, fn) {
      try {
        await fn();
        console.log(`PASS ${label}: ${what}`);
      } catch (err) {
        failures++;
        // A child process that failed (execFile) says why on its stderr.
        console.log(`FAIL ${label}: ${what}: ${err.stderr?.trim() || err.message}`);
      }
    },
    failed: () => failures > 0,
  };
}

// expect throws message unless cond holds.
export function expect(cond, message) {
  if (!cond) throw new Error(message);
}
