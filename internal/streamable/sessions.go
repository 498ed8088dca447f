package streamable

import (
	"sync"
	"time"
)

// sessions are the legacy sessions' ids, and when each was last used:
// past max, a new one ends the one idle the longest (track).
type sessions struct {
	mu   sync.Mutex
	used map[string]time.Time
	max  int // MaxSessions
}

// The bounds on the sessions.
const (
	MaxSessions    = 64               // legacy sessions; a new one past that ends the one idle the longest
	SessionTimeout = 30 * time.Minute // ends a session idle this long
)

// track records that a known or new legacy session was used now. A new one
// past max ends the one idle the longest, whose client gets 404.
func (h *Handler) track(id string, isNew bool) {
	s := &h.sessions
	s.mu.Lock()
	if _, known := s.used[id]; known || isNew && id != "" {
		s.used[id] = time.Now()
	}
	oldest := ""
	for other, used := range s.used {
		if len(s.used) > s.max && (oldest == "" || used.Before(s.used[oldest])) {
			oldest = other
		}
	}
	delete(s.used, oldest)
	s.mu.Unlock()
	for ss := range h.server.Sessions() {
		if oldest != "" && ss.ID() == oldest {
			h.log.Info("ending the session idle the longest: too many sessions", "max", s.max)
			_ = ss.Close() // as its client's DELETE would
		}
	}
}

// forget drops a session its client deleted: it counts no more.
func (s *sessions) forget(id string) {
	s.mu.Lock()
	delete(s.used, id)
	s.mu.Unlock()
}
