-- A pending browser sign-in is bound to the browser that began it: the SHA-256 of the
-- random value in its `__Host-svc_login` cookie. Sign-ins begun before this binding
-- existed cannot be checked, so they go (they lived ten minutes anyway).
DELETE FROM login_states;
ALTER TABLE login_states ADD COLUMN browser_hash TEXT NOT NULL DEFAULT '';
