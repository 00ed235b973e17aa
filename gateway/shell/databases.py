"""Databases: SQL judged by what its statements do, clients' own commands, restores, framework tasks.

``sql_effect`` reads a statement list with a SQL parser (sqlparse): a list is read-only only if every
statement is; DROP of a database, table, schema or keyspace, TRUNCATE, DELETE or UPDATE without WHERE and
ALTER … DROP destroy data (``database_destroy``); any other write is ``database_change``. The clients
(psql, mysql, sqlite3, cqlsh, clickhouse-client, bq …) hand it their `-c`/`-e`/`--query` text, stdin,
here-documents and `-f` files known to the analysis; their own commands (sqlite3 `.shell`, psql `\\!`, mysql
`system`) run commands and read and write files like the shell would.
"""

from __future__ import annotations

import re

import sqlparse
from sqlparse.sql import Where

from gateway.shell import categories as cat
from gateway.shell.invocation import Invocation
from gateway.shell.words import Word, literal_word


def words(call: Invocation) -> list[str]:
    """The arguments that are not options, lower-cased, in order."""
    return [w.value.lower() for w in call.args if not w.value.startswith("-")]


def flags(call: Invocation) -> set[str]:
    return {w.value.split("=", 1)[0] for w in call.args if w.value.startswith("-")}


_SQL_OPTIONS = ("-c", "--command", "-e", "--execute", "-q", "--query", "--eval", "-cmd")
# Where a client's option letters mean something else (`snowsql -c CONNECTION`, `sqlcmd -Q QUERY`).
_CLIENT_SQL_OPTIONS = {
    "snowsql": ("-q", "--query"),
    "sqlcmd": ("-q", "-Q", "--query"),
    "clickhouse-client": ("-q", "--query"),
    "clickhouse": ("-q", "--query"),
    "trino": ("--execute", "-e"),
    "presto": ("--execute", "-e"),
}


_READ_ONLY_SQL = frozenset({"SELECT", "WITH", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "PRAGMA", "VALUES", "TABLE",
                            # clients' own display commands (sqlplus, sqlcmd, snowsql, mysql)
                            "EXIT", "QUIT", "COLUMN", "COL", "PROMPT", "WHENEVER", "TTITLE", "BTITLE", "BREAK",
                            "COMPUTE", "CLEAR", "REM", "REMARK", "SPOOL", "GO", "PRINT", "LIST", "VACUUM",
                            "SET", "BEGIN", "COMMIT", "ROLLBACK", "START", "END", "USE", "LISTEN", "FETCH", "DECLARE",
                            "CLOSE", "ANALYZE", "CONSISTENCY", "TRACING", "PAGING", "EXPAND",
                            # Db2's command line processor
                            "CONNECT", "GET", "TERMINATE", "EXPORT", "REORGCHK"})
_DESTROYED_OBJECTS = ("DATABASE", "TABLE", "SCHEMA", "COLLECTION", "KEYSPACE", "INDEX", "VIEW", "MATERIALIZED",
                      "COLUMNFAMILY", "OWNED", "USER", "ROLE", "STREAM", "TOPIC", "CONNECTOR", "TABLESPACE",
                      "WAREHOUSE", "NAMESPACE", "CATALOG")


_CLIENT_LINE = re.compile(r"(?im)^(\s*(?:WHENEVER|SPOOL|PROMPT|COLUMN|COL|REM|REMARK|TTITLE|BTITLE|BREAK|COMPUTE"
                          r"|CLEAR|DEFINE|UNDEFINE|SHOW|CONN|EXIT|QUIT|GO|SET\s+(?:PAGESIZE|LINESIZE|ECHO|FEEDBACK"
                          r"|HEADING|SERVEROUTPUT|TERMOUT|VERIFY|TIMING|TRIMSPOOL|LONG|COLSEP|NOCOUNT|ANSI_\w+"
                          r"|QUOTED_IDENTIFIER|XACT_ABORT|SQLBLANKLINES|DEFINE|AUTOCOMMIT))\b[^;\n]*)$")


def sql_effect(sql: str) -> str | None:
    """What a statement list does, by its worst statement: ``database_destroy`` (DROP of a database, table,
    schema, keyspace …, TRUNCATE, DELETE or UPDATE without WHERE, ALTER … DROP), ``database_change`` (any
    other statement that is not read-only), or None when every statement only reads."""
    worst: str | None = None
    # SQL*Plus and sqlcmd commands end at the end of their line, with no `;`: `WHENEVER SQLERROR EXIT` must not
    # swallow the DROP on the next line into one statement.
    sql = _CLIENT_LINE.sub(r"\1;", sql[:262_144])
    try:
        statements = sqlparse.parse(sql)
    except Exception:  # sqlparse is non-validating; anything it cannot split is judged on keywords
        if re.search(r"\b(drop\s+(database|table|schema|keyspace)|truncate)\b", sql, re.I):
            return cat.DATABASE_DESTROY
        return cat.DATABASE_CHANGE if re.search(r"\b(insert|update|delete|alter|create|grant)\b", sql, re.I) else None
    for statement in statements:
        kind = statement.get_type()  # type: ignore[no-untyped-call]
        flat = statement.flatten()  # type: ignore[no-untyped-call]
        tokens = [t for t in flat if not t.is_whitespace and t.ttype not in sqlparse.tokens.Comment]
        if not tokens or tokens[0].value in (";",) or str(statement).lstrip().startswith(("\\", ".")):
            continue  # a client's own command (`\dt`, `.tables`, bteq's `.LOGON`): judged by _client_commands
        words = [t.normalized.upper() for t in tokens[:64] if t.ttype is not sqlparse.tokens.Punctuation]
        first = words[:3]
        if first and first[0].startswith(("\\", ".")):
            continue  # a client's own command (`\dt`, `.tables`): judged by _client_commands
        if (kind == "DROP" or first[:1] == ["DROP"]) and len(first) > 1 and first[1] in _DESTROYED_OBJECTS:
            return cat.DATABASE_DESTROY
        if first[:1] == ["TRUNCATE"]:
            return cat.DATABASE_DESTROY
        if kind in ("DELETE", "UPDATE") and not any(isinstance(t, Where) for t in statement.tokens):
            return cat.DATABASE_DESTROY
        if first[:1] == ["ALTER"] and "DROP" in words:
            return cat.DATABASE_DESTROY
        # Db2: `LOAD|IMPORT FROM f OF DEL REPLACE INTO t` empties t first; `… ACTIVATE NOT LOGGED INITIALLY WITH
        # EMPTY TABLE` empties it
        if (first[:1] in (["LOAD"], ["IMPORT"]) and "REPLACE" in words) or "WITH EMPTY TABLE" in " ".join(words):
            return cat.DATABASE_DESTROY
        if first and (first[0] not in _READ_ONLY_SQL or first[:2] in (["SET", "CLUSTER"], ["SET", "GLOBAL"],
                                                                       ["SET", "PERSIST"])):
            worst = cat.DATABASE_CHANGE  # `SET CLUSTER SETTING …`, `SET GLOBAL …`: the server's, not the session's
    return worst


# Text that is a SQL statement which changes something, wherever it is handed (a program's argument, a field
# of an HTTP API): `DELETE FROM t`, `DROP TABLE t`, `TRUNCATE t`, `UPDATE t SET …` — not a lone word (`drop`).
SQL_STATEMENT = re.compile(r"\s*(?:DELETE\s+FROM|DROP\s+(?:TABLE|DATABASE|SCHEMA|INDEX|VIEW|USER|KEYSPACE|MEASUREMENT"
                           r"|SERIES|RETENTION)|TRUNCATE\s+\S|UPDATE\s+\S+\s+SET|ALTER\s+(?:TABLE|DATABASE|USER)"
                           r"|INSERT\s+INTO|GRANT\s|REVOKE\s)", re.I)


def statement_effect(text: str) -> str | None:
    """What ``text`` does when it is a changing SQL statement handed somewhere (:data:`SQL_STATEMENT`), else None."""
    return sql_effect(text) if SQL_STATEMENT.match(text) else None


def sql_client(call: Invocation) -> str | None:
    options = _CLIENT_SQL_OPTIONS.get(call.name, _SQL_OPTIONS)
    texts = [w.value for i, w in enumerate(call.args) if i > 0 and call.args[i - 1].value in options]
    texts += [w.value.split("=", 1)[1] for w in call.args if w.value.startswith(("--command=", "--execute=", "--query=",
                                                                                  "--eval="))]
    operands = [w for w in call.args if not w.value.startswith("-")]
    if call.name in ("sqlite3", "duckdb"):  # sqlite3 DB 'SQL'
        texts += [w.value for w in operands[1:]]
    if call.name == "db2" and operands and not any(w.value.startswith("-") and "f" in w.value for w in call.args):
        texts.append(" ".join(w.value for w in operands))  # `db2 "DROP TABLE UW.X"`: the words are a CLP command
    # Script files: sqlplus `@file` / `@@file`, db2 `-tvf file`, sqlcmd / isql `-i file`, beeline / hive `-f file`
    scripts = [w.tail(1 + w.value.startswith("@@")) for w in operands if w.value.startswith("@") and len(w.value) > 1]
    scripts += [call.args[i + 1] for i, w in enumerate(call.args[:-1])
                if (w.value.startswith("-") and not w.value.startswith("--") and w.value.endswith("f")
                    and call.name == "db2") or (w.value == "-i" and call.name in ("sqlcmd", "isql", "bteq"))]
    for word in scripts[:8]:
        content = call.file_content(word)
        if content is not None and content.script is not None:
            texts.append(content.script)
    if call.stdin.script is not None:  # psql <<'SQL' … / echo 'DROP …' | mysql
        texts.append(call.stdin.script)
    for i, word in enumerate(call.args):  # psql -f file.sql: the file's text when it is known
        name, eq, _ = word.value.partition("=")
        if name in ("-f", "--file") and (eq or i + 1 < len(call.args)):
            content = call.file_content(word.tail(len(name) + 1) if eq else call.args[i + 1])
            if content is not None and content.script is not None:
                texts.append(content.script)
    for text in texts:
        _client_commands(call, text)
    effects = {sql_effect(t) for t in texts} - {None}
    if not effects or (_local_database_file(call) and not _attaches_elsewhere(call, texts)):
        # A database file of the workspace (a dev database, a fixture, a scratch one) is the project's local
        # work: changing it, even emptying it, is no more than deleting files of the workspace.
        return None
    return cat.DATABASE_DESTROY if cat.DATABASE_DESTROY in effects else cat.DATABASE_CHANGE


def bulk_load(call: Invocation) -> str | None:
    """Oracle Data Pump / imp and SQL Server's bcp loading a dump or a file into a database: a change, and with
    `table_exists_action=REPLACE|TRUNCATE` the tables in place are emptied first. `bcp … out|queryout` reads."""
    values = [w.value.lower() for w in call.args]
    if call.name == "bcp":
        return cat.DATABASE_CHANGE if "in" in values[1:3] else None
    if any(v.replace(" ", "") in ("table_exists_action=replace", "table_exists_action=truncate") for v in values):
        return cat.DATABASE_DESTROY
    return cat.DATABASE_CHANGE if values and not any(v in ("help=y", "-help", "--help") for v in values) else None


# SQLite's and DuckDB's ATTACH: another database opened beside the local one (`ATTACH 'host=db.prod …' AS p (TYPE
# postgres)`, `ATTACH 's3://…'`, `ATTACH '/srv/app/prod.db'`), and DuckDB's functions that run SQL on a server.
_ATTACH = re.compile(r"\bATTACH\s+(?:DATABASE\s+)?(?:IF\s+NOT\s+EXISTS\s+)?'([^']*)'([^;]*)", re.I)
_SERVER_SQL = re.compile(r"\b(?:postgres|mysql)_(?:execute|query|scan)\s*\(", re.I)


def _attaches_elsewhere(call: Invocation, texts: list[str]) -> bool:
    """The SQL reaches a database other than the project's own file: a server, a URL, a file elsewhere."""
    for text in texts:
        if _SERVER_SQL.search(text):
            return True
        for target, rest in _ATTACH.findall(text[: 1 << 16]):
            if re.search(r"\bTYPE\s+(?!sqlite\b|duckdb\b)\w+", rest, re.I) or "=" in target or ":" in target:
                return True  # `(TYPE postgres)`, a connection string, `md:`, `s3://…`
            path = call.inspect(literal_word(target)) if target and target != ":memory:" else None
            if target in ("", ":memory:"):
                continue  # a temporary database
            if path is None or call.facts.record(path).path_class not in ("temp", "workspace"):
                return True
    return False


def _local_database_file(call: Invocation) -> bool:
    """sqlite3/duckdb on a database of the project's own: in memory, temporary, or a file of the workspace (not a
    tool's store in the home, nor a system service's)."""
    if call.name not in ("sqlite3", "duckdb"):
        return False
    operands = [w for w in call.args if not w.value.startswith("-")]
    if not operands:
        return True  # an in-memory database
    path = call.inspect(operands[0])
    return path is not None and call.facts.record(path).path_class in ("temp", "workspace")


_CLIENT_WRITES = frozenset({".output", ".once", ".save", ".backup", ".excel", "\\o", "\\out", "tee", "\\w"})
_CLIENT_READS = frozenset({".import", ".read", ".open", ".restore", "\\i", "\\ir", "\\include", "source",
                           "\\.", "\\copy"})
_CLIENT_SHELLS = frozenset({".shell", ".system", "\\!", "system", "\\setenv"})
_COPY_INTO_TABLE = re.compile(r"""^\s*[\w."]+\s*(?:\([^)]*\))?\s+from\b""", re.I)
# dbt targets that are a live warehouse, by the name teams give them.
_LIVE_TARGET = re.compile(r"^(?:prod|production|prd|live|main)(?:[-_]\w+)?$|[-_](?:prod|production|prd)$", re.I)
_DBT_BUILDS = frozenset({"run", "build", "seed", "snapshot", "run-operation", "retry"})


def dbt_target(call: Invocation) -> str | None:
    """`dbt run --target prod`: models built into the live warehouse (the default target is a developer's own)."""
    words = [w.value for w in call.args]
    target = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("--target", "-t")), None) or next(
        (w.split("=", 1)[1] for w in words if w.startswith("--target=")), None)
    verbs = [w for i, w in enumerate(words) if not w.startswith("-") and (i == 0 or words[i - 1] not in (
        "--target", "-t", "--select", "-s", "--exclude", "--vars", "--profiles-dir", "--project-dir", "--profile"))]
    if target and _LIVE_TARGET.search(target) and verbs[:1] and verbs[0] in _DBT_BUILDS:
        return cat.DATABASE_CHANGE
    return None


def _client_commands(call: Invocation, text: str) -> None:
    """A SQL client's own commands (sqlite3 `.shell`/`.output`/`.import`, psql `\\!`/`\\o`/`\\i`, mysql
    `system`/`tee`/`source`): they run commands and read and write files like the shell would."""
    for line in text[: 1 << 16].splitlines():
        words = line.strip().split(None, 1)
        if not words:
            continue
        command, rest = words[0], (words[1].strip() if len(words) > 1 else "")
        if command in _CLIENT_SHELLS:
            if rest:
                call.run_script(rest)
            else:
                call.flag(cat.DYNAMIC_COMMAND)  # an interactive shell from inside the client
        elif command == ".load":
            call.flag(cat.DYNAMIC_COMMAND)  # native code loaded into the client
        elif command in _CLIENT_WRITES or command in _CLIENT_READS:
            target = rest.split()[-1 if command == ".backup" else 0] if rest else ""
            if command == "\\copy":
                target = next((w for w in rest.replace("'", " ").split() if w.startswith(("/", "~", "."))), "")
                if _COPY_INTO_TABLE.match(rest):
                    call.flag(cat.DATABASE_CHANGE)  # `\copy customers FROM 'fix.csv'`: rows written into a table
            if target.startswith("|"):
                call.run_script(target[1:])  # `.output |cmd`
            elif target:
                if command in _CLIENT_WRITES:
                    call.write(Word(target))
                else:
                    call.read(Word(target))


_MONGO_DROP = re.compile(r"\.(dropDatabase|drop|deleteMany|remove|updateMany|replaceOne|dropUser|dropAllUsers)"
                         r"\s*\(\s*(\{\s*\})?\s*[,)]")
_MONGO_USER = re.compile(r"\.(?:createUser|updateUser|grantRolesToUser)\s*\(")
# What changes a collection (a filter that selects some documents; every document is _MONGO_DROP's).
_MONGO_CHANGE = re.compile(r"\.(?:insert(?:One|Many)?|update(?:One|Many)?|replaceOne|delete(?:One|Many)|remove"
                           r"|findOneAnd(?:Update|Replace|Delete)|findAndModify|bulkWrite|save|createIndex(?:es)?"
                           r"|dropIndex(?:es)?|renameCollection|createCollection|(?:db\.)?runCommand)\s*\("
                           r"|\$(?:out|merge)\b")


def bq(call: Invocation) -> str | None:
    """`bq query 'SQL'`: judged by its SQL, like a database client's (`--dry_run` runs nothing)."""
    w = words(call)
    if w[:1] != ["query"] or any(a.value in ("--dry_run", "--dry_run=true") for a in call.args):
        return None
    operands = [a.value for a in call.args if not a.value.startswith("-")][1:]
    return sql_effect(operands[-1]) if operands else None


def restore(call: Invocation) -> str | None:
    """pg_restore --clean / mongorestore --drop replace what the database holds; any other restore writes it."""
    f = flags(call)
    if f & {"--clean", "-c", "--drop", "--if-exists"}:
        return cat.DATABASE_DESTROY
    if f & {"-d", "--dbname", "--host", "-h", "--uri", "--db"} or call.name == "mongorestore":
        return cat.DATABASE_CHANGE
    return None  # pg_restore -f out.sql / -l: only reads the archive


def mongo(call: Invocation) -> str | None:
    texts = [w.value for i, w in enumerate(call.args) if i > 0 and call.args[i - 1].value in ("--eval", "-e")]
    if call.stdin.script is not None:
        texts.append(call.stdin.script)
    for word in call.args:  # `mongosh URI script.js`: a script file the analysis knows
        if not word.value.startswith("-") and word.value.endswith(".js"):
            content = call.file_content(word)
            if content is not None and content.script is not None:
                texts.append(content.script)
    for text in texts:
        for match in _MONGO_DROP.finditer(text):
            if match.group(1) in ("dropDatabase", "drop", "dropAllUsers") or match.group(2) is not None:
                return cat.DATABASE_DESTROY
        if _MONGO_USER.search(text):
            return cat.CREDENTIAL_CREATION
        if _MONGO_CHANGE.search(text):
            return cat.DATABASE_CHANGE  # as an UPDATE through psql is
    return None


# What Ruby run against production data does (`rails runner -e production '…'`): a job's own code is judged
# by its verbs, since in production even the everyday ones (`update_all`, `create!`, `deliver_later`) act on users.
_RUBY_REMOVES = re.compile(r"\.(?:purge(?:_later)?|destroy(?:_all|_by)?|delete(?:_all|_by)?|clear|truncate)\b"
                           r"|&:(?:purge|destroy|delete|clear)\b")
_RUBY_MAILS = re.compile(r"\bdeliver_(?:now|later)\b|Mailer\b")
_RUBY_MINTS = re.compile(r"\.(?:api_)?(?:tokens|api_keys|keys|credentials|secrets)\.(?:create|new)!?\b")
_RUBY_WRITES = re.compile(r"\.(?:update(?:_all|_column|_columns|_attribute)?|save|create|insert_all|upsert_all"
                          r"|increment|decrement|toggle|touch)!?[\s(]")


def production_ruby(code: str) -> str | None:
    for pattern, category in ((_RUBY_MINTS, cat.CREDENTIAL_CREATION), (_RUBY_MAILS, cat.OUTWARD_MESSAGE),
                              (_RUBY_REMOVES, cat.DATABASE_DESTROY), (_RUBY_WRITES, cat.DATABASE_CHANGE)):
        if pattern.search(code[: 1 << 16]):
            return category
    return None


def _production(call: Invocation) -> bool:
    values = [w.value for w in call.args]
    named = [values[i + 1] for i, v in enumerate(values[:-1]) if v in ("-e", "--environment")]
    named += [v.split("=", 1)[1] for v in values if v.startswith(("-e=", "--environment="))]
    named.append(call.scope.vars.get("RAILS_ENV", "") or call.scope.vars.get("RACK_ENV", ""))
    return any(n.lower() in ("production", "prod") for n in named)


def framework_db(call: Invocation) -> str | None:
    """rails/rake db:drop|db:reset, prisma migrate reset, django flush; a Rails database console by its SQL;
    a Rails runner's code against production data by what it writes."""
    w = words(call)
    if call.name in ("rails", "bin/rails") and w[:1] in (["dbconsole"], ["db"]):
        if call.stdin.script is None:
            return cat.DYNAMIC_COMMAND  # typed in later: unknowable
        return sql_effect(call.stdin.script)
    if call.name in ("rails", "bin/rails") and w[:1] in (["runner"], ["r"]) and _production(call):
        values = [x.value for x in call.args]
        start = values.index(next(v for v in values if v.lower() == w[0])) + 1
        skip = False
        for value in values[start:]:  # the code: the first operand that is not `-e production`'s value
            if skip or value.startswith("-"):
                skip = not skip and value in ("-e", "--environment")
                continue
            return production_ruby(value)
    if any(x in ("db:drop", "db:reset", "db:schema:load", "db:purge") for x in w):
        return cat.DATABASE_DESTROY
    if w[:2] == ["migrate", "reset"] or (w[:2] == ["db", "push"] and "--force-reset" in flags(call)):
        return cat.DATABASE_DESTROY
    return None
