package main

import (
	"fmt"
	"strings"
)

// A checker prints checks the way interop/run counts them: one line per
// check, "PASS label: what" or "FAIL label: what: why".
type checker struct {
	label  string
	failed bool
}

// check runs fn, which returns an error to fail the check, and prints its
// line. It reports whether the check passed.
func (c *checker) check(what string, fn func() error) bool {
	err := fn()
	if err == nil {
		fmt.Printf("PASS %s: %s\n", c.label, what)
		return true
	}
	c.failed = true
	// One line a check: the reason's own lines are joined.
	why := strings.Join(strings.Fields(err.Error()), " ")
	fmt.Printf("FAIL %s: %s: %s\n", c.label, what, why)
	return false
}

// expect returns an error saying format unless cond holds.
func expect(cond bool, format string, args ...any) error {
	if cond {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// all returns the first error of errs, or nil.
func all(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
