-- setup: what the other suites share, run first (pg/Makefile lists it
-- first in REGRESS), as PostgreSQL's own test_setup does: helpers in a
-- schema "regress" of the test database.  The extension itself is
-- created by each suite (IF NOT EXISTS), so that an updated extension
-- (pg/test/run.sh's sql-from-VERSION passes) is what they test.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS regress CASCADE;
RESET client_min_messages;
CREATE SCHEMA regress;
GRANT USAGE ON SCHEMA regress TO PUBLIC;

-- regress.err(statement): runs it; 'no error', or its SQLSTATE and message,
-- then its detail and hint when it has them.
CREATE FUNCTION regress.err(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	v_state text;
	v_msg text;
	v_detail text;
	v_hint text;
BEGIN
	EXECUTE stmt;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_msg = MESSAGE_TEXT,
		v_detail = PG_EXCEPTION_DETAIL, v_hint = PG_EXCEPTION_HINT;
	RETURN v_state || ': ' || v_msg
		|| CASE WHEN v_detail <> '' THEN ' (detail: ' || v_detail || ')' ELSE '' END
		|| CASE WHEN v_hint <> '' THEN ' (hint: ' || v_hint || ')' ELSE '' END;
END $$;

-- regress.err_masked(statement): regress.err() with what differs from run
-- to run (timestamps, system identifiers, ports) masked.  A server with a
-- cluster_name (Debian's clusters, pg_virtualenv's) is labelled by it
-- instead of its port: masked the same way, so that the suites pass there.
CREATE FUNCTION regress.err_masked(stmt text) RETURNS text
LANGUAGE sql AS $$
	SELECT replace(regexp_replace(regexp_replace(regexp_replace(regress.err(stmt),
		'\d{4}-\d\d-\d\d [0-9:.+-]+', 'TIME', 'g'),
		'\m\d{6,}\M', 'SYSID', 'g'),
		'port \d+', 'port PORT', 'g'),
		'server is "' || current_setting('cluster_name') || '"', 'server is "port PORT"')
$$;

-- The hostile_* suites: each fills a temporary case table made by
-- regress.hostile_begin() and runs it with regress.run_hostile().  expect
-- is a SQLSTATE, 'null' (STRICT: NULL in, NULL out) or the exact result as
-- text; needle, for an error, is text its message or detail must contain
-- (the value that was refused).  Each case runs in its own
-- subtransaction; a crash would end the suite, so reaching the summary
-- means no case crashed the backend.
CREATE FUNCTION regress.hostile_begin() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	CREATE TEMP TABLE hostile (
		n serial PRIMARY KEY,
		fn text NOT NULL,
		label text NOT NULL,
		q text NOT NULL,
		expect text NOT NULL,
		needle text
	);
END $$;

-- Messages as one printable ASCII line: other characters as \uXXXX, long
-- ones cut (the full text is what the needle is looked for in).
CREATE FUNCTION regress.show(s text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	r text := '';
	c text;
	total int := length(s);
BEGIN
	IF total > 120 THEN
		s := left(s, 120);
	END IF;
	FOR i IN 1 .. coalesce(length(s), 0) LOOP
		c := substr(s, i, 1);
		IF ascii(c) BETWEEN 32 AND 126 THEN
			r := r || c;
		ELSE
			r := r || '\u' || lpad(to_hex(ascii(c)), 4, '0');
		END IF;
	END LOOP;
	IF total > 120 THEN
		r := r || '... (' || total || ' characters)';
	END IF;
	RETURN r;
END $$;

CREATE FUNCTION regress.run_hostile()
RETURNS TABLE (label text, expect text, got text, pass bool, named text, message text)
LANGUAGE plpgsql AS $$
DECLARE
	c record;
	v text;
	m text;
	d text;
BEGIN
	FOR c IN SELECT * FROM pg_temp.hostile h ORDER BY h.n LOOP
		m := '';
		d := '';
		BEGIN
			EXECUTE c.q INTO v;
			got := coalesce(v, 'null');
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS got = RETURNED_SQLSTATE, m = MESSAGE_TEXT,
				d = PG_EXCEPTION_DETAIL;
		END;
		label := c.label;
		expect := c.expect;
		pass := got = c.expect;
		named := CASE WHEN c.needle IS NULL THEN '-'
					  WHEN strpos(m || ' ' || coalesce(d, ''), c.needle) > 0 THEN 'yes'
					  ELSE 'NO' END;
		-- a value computed from the clock differs each run: not shown
		IF c.label LIKE '%(now-relative)' THEN
			m := regexp_replace(m, '"[^"]*"', '"..."');
			d := regexp_replace(d, '"[^"]*"', '"..."');
		END IF;
		message := regress.show(m || CASE WHEN coalesce(d, '') <> '' THEN ' (' || d || ')' ELSE '' END);
		got := regress.show(got);
		RETURN NEXT;
	END LOOP;
END $$;

-- regress.hostile_report(): runs the cases into a temporary table
-- hostile_result and returns one line per case, in case order;
-- regress.hostile_summary() then counts the failed cases and the errors
-- that do not name the refused value.
CREATE FUNCTION regress.hostile_report() RETURNS TABLE (line text)
LANGUAGE plpgsql AS $$
BEGIN
	CREATE TEMP TABLE hostile_result AS
		SELECT row_number() OVER () AS n, r.* FROM regress.run_hostile() r;
	RETURN QUERY
		SELECT concat_ws(' | ', h.label, h.expect, h.got,
						 CASE WHEN h.pass THEN 't' ELSE 'f' END, h.named,
						 coalesce(h.message, ''))
		  FROM pg_temp.hostile_result h ORDER BY h.n;
END $$;

CREATE FUNCTION regress.hostile_summary(OUT cases bigint, OUT failed bigint, OUT unnamed bigint)
LANGUAGE plpgsql AS $$
BEGIN
	SELECT count(*), count(*) FILTER (WHERE NOT h.pass), count(*) FILTER (WHERE h.named = 'NO')
	  INTO cases, failed, unnamed
	  FROM pg_temp.hostile_result h;
END $$;

SELECT p.oid::regprocedure AS helper
  FROM pg_proc p
 WHERE p.pronamespace = 'regress'::regnamespace
 ORDER BY p.oid::regprocedure::text;
