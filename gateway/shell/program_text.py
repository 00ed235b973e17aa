"""What program text says, in any language: the part of reading code that needs no parser.

Interpreter code (``python -c``, ``node -e``, scripts run by name, notebooks' cells) and code in languages
with no parser here (Elixir, Lua, Go or Rust sources run by their toolchains) are read for what their text
names, before and beside a parser's API-level reading (``gateway.shell.code``):

- telltale combinations: a socket plus a spawned shell, a download plus an eval, a fork in a loop;
- names computed at run time (`require('child' + '_process')`), a Redis client (the gateway's store);
- the environment walked or printed, a secret variable or a client's secret attribute printed;
- URLs (posted to, hosts reached), SQL statements in string literals that drop, truncate or change rows
  without a filter, paths of secrets;
- **client-library calls judged by their verb** (``sdk_verb``): a method whose name says it deletes,
  deploys, publishes, uploads or sends does through an SDK what the service's CLI would
  (`MlflowClient().delete_registered_model(…)`, `HfApi().upload_folder(…)`, `model.deploy(…)`,
  `Repo.delete_all(User)`). Client libraries appear faster than anyone can list them, so no list of
  libraries gates this; words that also name everyday work on local data (`list.remove`, `df.drop`,
  `map.delete` in JavaScript, `hash.delete` in Ruby, `proc.terminate()`) are left out.
"""

from __future__ import annotations

import re
import shlex

from gateway.shell import categories as cat
from gateway.shell import code_paths, service_calls, services
from gateway.shell import hosts as hostnames
from gateway.shell.code.effects import command_line
from gateway.shell.code_paths import HOME_JOIN, home_parts, quoted, shell_path
from gateway.shell.databases import sql_effect
from gateway.shell.invocation import Invocation
from gateway.shell.words import Word

_SOCKET = ("socket", "fsockopen", "tcpsocket", "net.connect", "net.socket", "io::socket",
           "createconnection", "/dev/tcp/")
_SPAWN = ("subprocess", "pty.spawn", "import pty", "dup2", "/bin/sh", "/bin/bash", "exec(", "exec ",
          "popen", "system(", "child_process", "spawn(", "proc_open", "shell_exec", "passthru", "cmd.exe")
# HTTP clients, in any of the languages (their standard ones and the common libraries): code that fetches.
_FETCH = ("urlopen", "urllib", "requests.", "httpx", "http.client", "httplib", "aiohttp", "pycurl", "fetch(",
          "lwp::", "http::tiny", "http::request", "mojo::useragent", "furl", "getstore", "open-uri", "net::http",
          "net/http", "httparty", "faraday", "restclient", "rest-client", "file_get_contents('http",
          'file_get_contents("http', "curl_exec", "curl_init", "guzzle", "https.get(", "http.get(", "axios",
          "node-fetch", "undici", "superagent", "got(")
# Code that sends a local file's content to another machine (as `curl -d @file URL` does): an HTTP write or an
# upload, in any of the languages, whose body is read from a file.
_UPLOADS = re.compile(r"""\.(?:post|put|patch)\s*\(|method\s*[:=]\s*['"](?:POST|PUT|PATCH)['"]|\bupload\w*\s*\("""
                      r"""|CURLOPT_POSTFIELDS|CURLOPT_UPLOAD|Net::HTTP::(?:Post|Put)|->\s*(?:post|put)\b"""
                      r"""|\bstorbinary\s*\(|\bsendfile\s*\(""", re.I)
_READS_FILE = re.compile(r"""readFileSync|\breadFile\s*\(|createReadStream|Bun\.file\s*\(|Deno\.readFile"""
                         r"""|\bopen\s*\(\s*['"][^'"]+['"]\s*(?:,\s*['"]r[bt]?['"]\s*)?\)"""
                         r"""|File\.(?:read|binread|open)\b|IO\.read\b|\.read_(?:text|bytes)\s*\(|\bslurp\b"""
                         r"""|file_get_contents\s*\(\s*['"](?!https?:)|fopen\s*\(\s*['"](?!https?:)""")
_RUN = ("exec(", "eval(", "eval ", "execfile", "compile(", "os.system", "subprocess", "system(", "instance_eval",
        "new function", "vm.runin", "then(eval", "(eval)", "import(")
# A module or a method whose name is computed: `require('child' + '_process')`, `obj['exec' + 'Sync'](`,
# `send(:"sys" + "tem")`, `__import__('o' + 's')`, `globals()[name](`.
_COMPUTED_NAME = re.compile(r"""(?:\brequire|\bimport|__import__|import_module)\s*\(\s*"""
                            r"""(?:['"][^'"]*['"]\s*\+|[A-Za-z_$][\w$]*\s*[+)])"""
                            r"""|\[\s*['"][^'"\]]*['"]\s*\+[^\]]*\]\s*\(|\.send\(\s*:?['"]?\w*['"]?\s*\+"""
                            r"""|\b(?:send|public_send|__send__|method)\s*\(\s*:?['"]?(?:system|exec|spawn|syscall|`)\b"""
                            r"""|\b(?:send|public_send|__send__)\s*\(\s*(?:%w|\[|[a-z_]\w*\s*[,)])""")
# Redis client libraries, in any language: `import redis`, `require('ioredis')`, `Redis.new`, `Predis\Client`.
_REDIS_CLIENT = re.compile(r"""\bimport\s+(?:redis|aioredis|valkey)\b|\bfrom\s+(?:redis|aioredis|valkey)\b"""
                           r"""|require\(\s*['"](?:ioredis|redis|@redis/client|valkey)['"]\s*\)"""
                           r"""|from\s+['"](?:ioredis|redis|@redis/client)['"]|\bRedis\.new\b|Predis\\Client|new\s+Redis\s*\(""")
# The whole environment walked item by item, in any of the languages (`sort keys %ENV`, `ENV.sort.each`,
# `Object.entries(process.env)`, `dotenv_values(…)` printed).
_WALKS_ENVIRONMENT = re.compile(r"\b(?:keys|each|values)\s*\(?\s*%ENV\b"
                                r"|\bENV\.(?:sort|each|to_h|to_a|map|select|keys)\b"
                                r"|Object\.(?:entries|keys|values|assign)\(\s*process\.env\s*\)|\.\.\.\s*process\.env\b"
                                r"|(?:print|pprint|dumps|log|puts|p)\s*\(?[^;\n]*\bdotenv_values\b|dotenv\.(?:parse|config)\(\)\.parsed"
                                r"|Deno\.env\.toObject\s*\(|\b(?:log|stringify|dump|write)\s*\(\s*(?:process|Bun)\.env\s*[,)]")
# One secret-named variable printed (`console.log(process.env.STRIPE_SECRET_KEY)`, `print(os.environ["API_TOKEN"])`).
# (The printing word is a call of its own: `p` inside `pynetbox.api(…, token=os.environ[…])` prints nothing.)
_PRINTS_SECRET = re.compile(r"""(?<![\w$])(?:console\.\w+|print|puts|pp|p|echo|printf|say|write)(?:\s*\(|\s+)"""
                            r"""[^;\n]{0,200}?"""
                            r"""(?:process\.env\.|os\.environ\[\s*['"]|os\.getenv\(\s*['"]|ENV\[\s*['"]|\$ENV\{\s*['"]?|getenv\(\s*['"])"""
                            r"""\w*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL)""",
                            re.I)
# A string literal that is an SQL statement changing data or schema, wherever it is handed (`.execute("…")`,
# `Ecto.Adapters.SQL.query!(Repo, "TRUNCATE events")`, `DB::statement('DROP TABLE …')`, a variable first).
_SQL_STRING = re.compile(r"""(['"])\s*((?:DROP|TRUNCATE|DELETE|UPDATE|ALTER|INSERT|MERGE|GRANT|REVOKE)\s"""
                         r"""(?:(?!\1).){4,4000})\1""", re.S | re.I)
_URL_IN_CODE = re.compile(r"""https?://[^\s'"`<>)]+""")
_QUOTED_PATH = re.compile(r"""(['"`])((?:~?/|\.|[\w.-]+/)[^'"`\s$]*)\1|\$\{\s*homedir\(\)\s*\}(/[^'"`\s$]*)""")

# Client-library methods by the verb their name starts with (`delete_registered_model`, `deleteBucket`,
# `upload_folder`, `push_to_hub`, `transition_model_version_stage`). A compound name (verb + `_` or a capital)
# names a remote resource, and so does a long-running operation's (`begin_delete(…)`). A bare verb (`.delete(`)
# counts only where collections have no such method: in Python (_BARE), and in Ruby only destroy/purge and the
# `_all` forms (_BARE_RUBY: Ruby's Hash#delete and JavaScript's Map#delete take a key).
_COMPOUND = re.compile(r"""\.(?:begin_|start_|async_|batch_|bulk_)?(delete|destroy|purge|wipe|erase|terminate"""
                       r"""|deregister|decommission|deprovision|nuke|deploy|undeploy|redeploy|rollback|promote|transition|failover"""
                       r"""|upload|publish|push_to)(?:_|(?=[A-Z])|(?<=[a-z])(?=\s*\())(\w*)\s*\(""", re.I)
# Sends: the whole name says it (`send_email(…)`, `sendMessage(…)`, `chat_postMessage(…)`).
_SENDS = re.compile(r"""\.(?:send_?mail|send_?email|send_?sms|send_?message|chat_post_?message)\w*\s*\(""", re.I)
_BARE = re.compile(r"""\.(delete|destroy|purge|deploy|upload|publish|sendmail|transition)\s*[(!]""")
_BARE_RUBY = re.compile(r"""\.(destroy|destroy_all|delete_all|purge|deploy|upload|publish)\b!?""")
# Compound names that are everyday work on local data, whatever their verb.
_LOCAL_COMPOUNDS = re.compile(r"(?i)^(?:delete_?(?:if|prefix|suffix|char_?at|property|at|key|item|line|row_?at)"
                              r"|drop_?(?:duplicates|na|level)|upload_?progress|terminate_?process)$")
_DROPS = re.compile(r"""\.drop_?(database|db|table|tables|collection|index|schema|keyspace|bucket|all)\w*\s*\(""", re.I)
# A store emptied through its client: `conn.flushdb`, `r.flushall()`, `index.clear_objects()`,
# `collection.deleteMany({})`, `Model.truncate_all` — whatever the receiver is called.
_WIPES = re.compile(r"""\.(?:flush_?(?:db|all)|truncate_?(?:all|tables?)|clear_?(?:objects|index|all_?data)"""
                    r"""|delete_?many\s*\(\s*\{\s*\})\b""", re.I)
# SDKs that take a request object per operation (AWS SDK v3 `new DeleteObjectsCommand(…)`, Java's
# `new DeleteBucketRequest(…)`, `TerminateInstancesRequest.builder()`): the class names the operation.
_OPERATION_OBJECT = re.compile(r"""\b(?:new\s+)?(?:Delete|Destroy|Purge|Terminate|Deregister|Drop|Truncate)[A-Z]\w*"""
                               r"""(?:Command|Request|Input)\s*[(.]""")
_SCHEDULED_DELETION = re.compile(r"""\.schedule_?\w*deletion\w*\s*\(""", re.I)  # KMS keys, secrets, projects
# Through a cloud SDK even the everyday words remove (`remove_role_from_instance_profile`), empty and terminate.
_CLOUD_REMOVES = re.compile(r"""\.(?:remove|empty|terminate)\w*\s*\(""")
# Payment and messaging resources created through an SDK (`stripe.Refund.create`, `client.refunds.create`,
# `twilio … messages.create` — the latter only with a messaging SDK: an LLM SDK's messages.create is a prompt).
_MONEY = re.compile(r"""\b(?:charges|refunds|payouts|transfers|payment_?intents|Charge|Refund|Payout|Transfer"""
                    r"""|PaymentIntent)\.create\s*\(""")
_MESSAGING_SDK = re.compile(r"""\btwilio\b|sendgrid|slack_sdk|@slack/web-api|\bsmtplib\b|nodemailer|\bmailgun"""
                            r"""|firebase_admin|firebase-admin|\bapns2?\b|pushnotifications|onesignal"""
                            r"""|postmark|\bresend\b|discord|telegram|\bvonage\b|messagebird""", re.I)
_MESSAGE_CREATE = re.compile(r"""\.messages\.create\s*\(|\.postMessage\s*\("""
                             r"""|\.send(?:_\w+|Each\w*|All|Multicast)?\s*\(""")
# A secret held by a client object and printed (`print(wandb.Api().api_key)`, `puts client.token`), or read
# from a secret manager (`get_secret_value`, `access_secret_version`).
_PRINTS_SECRET_ATTRIBUTE = re.compile(
    r"""(?<![\w$])(?:console\.\w+|print|puts|pp|p|echo|printf|say|write|IO\.puts|dumps)(?:\s*\(|\s+)[^;\n]{0,200}?"""
    r"""\.(?:\w+_)?(?:api_?key|token|secret|secret_?key|password|passwd|access_?key|private_?key|credentials)\b(?!\s*\()""",
    re.I)
# A directory's attributes that hold passwords (LAPS, group-managed service accounts) and the cmdlets that read them.
_DIRECTORY_SECRET = re.compile(r"""\b(?:ms-Mcs-AdmPwd|msLAPS-(?:Encrypted)?(?:DSRM)?Password|msDS-ManagedPassword"""
                               r"""|unicodePwd|Get-LapsADPassword|Get-AdmPwdPassword)\b""", re.I)
_SECRET_MANAGER_READ = re.compile(r"""\.(?:get_secret_value|getSecretValue|access_secret_version|accessSecretVersion"""
                                  r"""|get_password|getPassword|get_credential|getCredential"""
                                  r"""|get_secret|getSecret|read_secret\w*)\s*\(""")
# A network device's configuration changed through an automation library (netmiko, NAPALM, ncclient, PyEZ,
# scrapli, Nornir, pygnmi): what `ssh router 'configure …; commit'` does, by API.
_DEVICE_CONFIG = re.compile(r"""\.(?:send_config_set|send_config_from_file|send_configs?(?:_from_file)?|edit_config"""
                            r"""|commit_config|load_merge_candidate|load_replace_candidate|copy_config|delete_config"""
                            r"""|napalm_configure|netmiko_send_config|save_config)\s*\(""")
_NETWORK_SDK = re.compile(r"""\b(?:jnpr\.junos|ncclient|netmiko|napalm|nornir|scrapli|pygnmi)\b""")
_NETWORK_COMMIT = re.compile(r"""\.(?:commit|set|rpc|dispatch)\s*\(""")
# Money moved back or out through a payment SDK (`checkout.modifications_api.refund_captured_payment(…)`,
# `client.payouts.create(…)` is _MONEY), and PHP's own mail functions (`mail($to, …)`, `wp_mail`, Laravel's `Mail::to`).
_REFUNDS = re.compile(r"""\.(?:refund|payout|reverse_?payment|cancel_?or_?refund)\w*\s*\(""", re.I)
_PHP_MAIL = re.compile(r"""(?<![\w>$:])(?:mail|wp_mail|mb_send_mail)\s*\(|\bMail::(?:to|send|raw|queue)\b""")
# A credential minted through a client library (`nb.users.tokens.create(…)`, `iam.create_access_key(…)`,
# `create_service_account_key(…)`), as `POST …/tokens` is. (Users are left out: a test creates them in its own
# database all day.)
_MINTS = re.compile(r"""\.(?:tokens|api_?keys|access_?keys|service_?accounts|deploy_?keys|app_?passwords"""
                    r"""|personal_?access_?tokens)\.(?:create|add|new|generate|issue)\s*\("""
                    r"""|\.(?:create|generate|issue|mint)_?(?:access_?key|api_?key|token|service_?account(?:_?key)?"""
                    r"""|app_?password|deploy_?key|personal_?access_?token|login_?profile)\w*\s*\(""", re.I)
# Records produced onto a message bus other services consume (Kafka, RabbitMQ, NATS, Pulsar, Pub/Sub, SQS/SNS):
# as `kcat -P` does. A broker named only on this machine is a developer's own.
_PRODUCER = re.compile(r"""\b(?:KafkaProducer|AIOKafkaProducer|confluent_kafka|Producer\(\s*\{|basic_publish"""
                       r"""|PublisherClient|create_producer|\.publish\s*\(\s*['"][\w.>*-]+['"]\s*,)""")
_PRODUCE = re.compile(r"""\.(?:send|produce|basic_publish|publish|send_message|send_messages)\s*\(""")
_LOCAL_BROKER = re.compile(r"""\b(?:localhost|127\.0\.0\.1)\b""")
# Memory (and GPU memory) taken in one go or without end: `bytearray(1 << 34)`, `[bytearray(1 << 30) for _ in
# range(4096)]`, `torch.empty(1 << 30, device='cuda')` appended in an endless loop, `Buffer.alloc(2**33)`.
_ALLOCATION = re.compile(r"""(?:\bbytearray|\bbytes"""
                         r"""|\b(?:np|numpy|torch|cupy|jnp)\.(?:zeros|ones|empty|full|rand|randn)"""
                         r"""|Buffer\.alloc(?:Unsafe)?|\bnew\s+(?:Array|ArrayBuffer|Uint8Array|Float64Array)|\bmalloc"""
                         r"""|\bcalloc)\s*\(\s*(\((?:[0-9_\s<*+e.]{1,20},){1,7}[0-9_\s<*+e.]{0,20}\)|[0-9_\s<*+()e.]{1,40}?)"""
                         r"""\s*[,)]"""
                         r"""|(['"]).\2\s*\*\s*([0-9_\s<*+()e.]{1,40})""")
_ENDLESS = re.compile(r"""\bwhile\s*\(?\s*(?:True|1|true)\s*\)?\s*[:{]|iter\s*\(\s*int\s*,|itertools\.count\s*\(|"""
                      r"""\bfor\s*\(\s*;\s*;\s*\)|\bloop\s+do\b|\bloop\s*\{""")
_RANGE = re.compile(r"""\brange\s*\(\s*([0-9_\s<*+()e.]{1,40}?)\s*\)""")
FLOOD_BYTES = 8 << 30  # as for files (gateway/shell/exhaustion.py): more than any test needs


def _number(expression: str) -> int | None:
    """A constant integer expression (`1 << 30`, `4 * 1024**3`, `10_000_000`); None for anything else."""
    import ast

    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return None

    def value(node: ast.expr) -> int | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return int(node.value)
        if isinstance(node, ast.BinOp):
            left, right = value(node.left), value(node.right)
            if left is None or right is None or abs(left) > 1 << 64 or abs(right) > 1 << 64:
                return None
            if isinstance(node.op, ast.LShift) and 0 <= right <= 64:
                return left << right
            if isinstance(node.op, ast.Pow) and 0 <= right <= 64 and abs(left) <= 1 << 16:
                return int(left ** right)
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.Add):
                return left + right
        return None

    return value(tree.body)


def _size(expression: str) -> int:
    """An allocation's size: a number, or a shape (`(1024, 1024, 64)`: the product of its dimensions)."""
    inner = expression.strip()
    if inner.startswith("(") and "," in inner:
        total = 1
        for part in inner.strip("()").split(",")[:8]:
            if part.strip():
                total *= _number(part) or 0
        return total
    while inner.endswith(")") and inner.count(")") > inner.count("("):
        inner = inner[:-1].rstrip()  # `x.append(' ' * 10**7)`: the call's own parenthesis
    return _number(inner) or 0


def floods_memory(code: str) -> bool:
    """One allocation past ``FLOOD_BYTES``, allocations repeated past it, or any allocation of a megabyte or
    more repeated without end."""
    text = code[: 1 << 16]
    sizes = [_size(m.group(1) or m.group(3) or "") for m in _ALLOCATION.finditer(text)]
    if not sizes:
        return False
    largest = max(sizes)
    if largest >= FLOOD_BYTES:
        return True
    if largest >= 1 << 20 and _ENDLESS.search(text):
        return True
    repeats = [_number(m.group(1)) or 0 for m in _RANGE.finditer(text)]
    return bool(repeats) and largest * max(repeats) >= FLOOD_BYTES


# Shell code handed to a shell from any language (`Command::new("sh").arg("-c").arg("…")` in Rust,
# `exec.Command("bash", "-c", "…")` in Go, `new ProcessBuilder("sh", "-c", "…")`, `System.cmd("sh", ["-c", "…"])`,
# Lua's `os.execute("…")`): the string is a command line.
_SHELL_HANDOFF = re.compile(r"""["'](?:/bin/|/usr/bin/)?(?:ba|z|da)?sh["'][^"']{0,60}?["']-c["'][^"']{0,60}?"""
                            r"""["']((?:[^"'\\\n]|\\.){1,4000})["']"""
                            r"""|\bos\.execute\s*\(\s*["']((?:[^"'\\\n]|\\.){1,4000})["']""")


# A program started with its arguments as literals, in a language with no parser here (`ProcessBuilder("aws",
# "s3", "rm", …)`, Gradle's `commandLine("rm", "-rf", …)`, `exec.Command("git", "push", "-f")`): one command line.
# Dart's `Process.run('rm', ['-rf', …])` puts the arguments in a list, in single quotes.
_ARG = r"""(?:"[^"\n]{0,400}"|'[^'\n]{0,400}')"""
_ARGV_HANDOFF = re.compile(r"""\b(?:ProcessBuilder|commandLine|exec\.Command(?:Context)?|Command::new|Process\.Start"""
                           r"""|Process\.(?:run|runSync|start)|System\.cmd|Runtime\.getRuntime\(\)\.exec|cmd\.exe)"""
                           r"""\s*\(\s*(?:\w+\s*,\s*)?((?:""" + _ARG + r"""\s*,\s*\[?\s*){0,32}""" + _ARG
                           + r""")\]?(\s*,)?""")
_INTERPOLATION = re.compile(r"\$(?:\{|[A-Za-z_])|#\{")
# CMake: `execute_process(COMMAND …)`, `add_custom_command(… COMMAND …)` run a program with those words;
# `file(REMOVE_RECURSE …)` deletes. Keywords after the command end it.
_CMAKE_COMMAND = re.compile(r"""\bCOMMAND\s+((?:[^()\n]|\([^()\n]*\)){1,2000}?)(?=\s+(?:COMMAND|WORKING_DIRECTORY"""
                            r"""|RESULT_VARIABLE|RESULTS_VARIABLE|OUTPUT_VARIABLE|ERROR_VARIABLE|TIMEOUT|COMMAND_ECHO"""
                            r"""|OUTPUT_QUIET|ERROR_QUIET|DEPENDS|BYPRODUCTS|COMMENT|VERBATIM|OUTPUT|USES_TERMINAL)\b|\s*\))""")
# Scala's process DSL: `"rm -rf /x".!`, `"curl … | sh" !!` run the string as a command.
_SCALA_PROCESS = re.compile(r'"([^"\n]{1,400})"\s*\.?\s*!{1,2}(?![=\w])')
# Groovy (Gradle, Jenkins): `"rm -rf ${x}".execute()` runs the string as a command line.
_GROOVY_EXECUTE = re.compile(r'"([^"\n]{1,400})"\s*\.execute\s*\(')
_CMAKE_REMOVE = re.compile(r"""\bfile\s*\(\s*REMOVE(_RECURSE)?\s+([^)]{1,2000})\)""")
_CMAKE_ENV = re.compile(r"\$ENV\{(\w+)\}")


# R: `system("cmd")`, `system2("prog", c("a", "b"))`, `unlink("dir", recursive = TRUE)`; Julia: run(`cmd`),
# run(pipeline(`curl …`, `bash`)); PowerShell: `Remove-Item … -Recurse`, `iex (iwr URL)`; .NET: `Process.Start(
# "prog", "the argument string")`, `new ProcessStartInfo("prog", "args")`; nox: `session.run("terraform", …)`.
_R_SYSTEM = re.compile(r"""\bsystem\s*\(\s*["']((?:[^"'\\\n]|\\.){1,2000})["']""")
_R_SYSTEM2 = re.compile(r"""\bsystem2\s*\(\s*["']([^"'\n]{1,200})["']\s*,\s*(?:args\s*=\s*)?(?:c\s*\()?"""
                        r"""((?:\s*["'][^"'\n]{0,400}["']\s*,?){0,32})""")
_R_UNLINK = re.compile(r"""\bunlink\s*\(\s*["']([^"'\n]{1,400})["'][^)]{0,200}recursive\s*=\s*(?:TRUE|T)\b""")
_JULIA_RUN = re.compile(r"""\brun\s*\(\s*(pipeline\s*\(\s*)?`([^`\n]{1,2000})`(?:\s*,\s*`([^`\n]{1,400})`)?""")
_PWSH_REMOVE = re.compile(r"""\b(?:Remove-Item|rm|del|ri|rd|rmdir)\s+([^|;\n]*-Recurse\b[^|;\n]*)""", re.I)
_PWSH_ARG = re.compile(r"""-\w+|"[^"]*"|'[^']*'|[^\s"']+""")
_PWSH_IEX = re.compile(r"""\b(?:Invoke-Expression|iex)\b[^;\n]{0,200}\b(?:Invoke-WebRequest|iwr|Invoke-RestMethod|irm"""
                       r"""|DownloadString|curl|wget)\b|\b(?:Invoke-WebRequest|iwr|Invoke-RestMethod|irm|DownloadString)\b"""
                       r"""[^;\n]{0,200}\|\s*(?:Invoke-Expression|iex)\b""", re.I)
# Windows starting a program by itself: scheduled tasks, services, autorun registry values, WMI subscriptions.
_PWSH_SEND = re.compile(r"""\b(?:Send-MailMessage|Send-MgUserMail|Send-MgUserMessage|Send-MgChatMessage"""
                        r"""|New-MgChatMessage|New-MgTeamChannelMessage|New-MgTeamChannelMessageReply"""
                        r"""|Send-TeamsMessage|Send-SlackMessage|Send-PSSlackMessage|Send-SmtpMail)\b""", re.I)
_PWSH_PERSIST = re.compile(r"""\b(?:Register-ScheduledTask|New-ScheduledTask|New-Service|Register-WmiEvent"""
                           r"""|New-CimInstance\b[^\n]{0,200}__EventFilter)\b|\b(?:New-ItemProperty|Set-ItemProperty)\b"""
                           r"""[^\n]{0,200}\\CurrentVersion\\Run""", re.I)
_PWSH_PLAIN_SECRET = re.compile(r"""\b(?:Get-AzKeyVaultSecret|Get-Secret|ConvertFrom-SecureString)\b[^\n]{0,200}"""
                                r"""-AsPlainText|\.SecretValueText\b""", re.I)
_DOTNET_START = re.compile(r"""\b(?:Process\.Start|ProcessStartInfo)\s*\(\s*"([^"\n]{1,200})"\s*,\s*"""
                           r""""((?:[^"\\\n]|\\.){1,2000})"\s*\)""")
_SESSION_RUN = re.compile(r"""\bsession\.run(?:_always|_install)?\s*\(\s*((?:""" + _ARG + r"""\s*,\s*){0,32}"""
                          + _ARG + ")")


_STATA_SHELL = re.compile(r"(?m)^\s*shell\s+(\S.{0,2000})$")  # Stata's `shell CMD` line
# SAS hands a command line to the system with the X statement, %sysexec, CALL SYSTEM, SYSTASK and a pipe fileref.
_SAS_SHELL = re.compile(r"""(?im)(?:^\s*x\s+|\bcall\s+system\s*\(\s*|\bsystask\s+command\s+"""
                        r"""|\bfilename\s+\w+\s+pipe\s+)(['"])((?:(?!\1).){1,2000})\1"""
                        r"""|%sysexec\s+([^;\n]{1,2000});""")


def _removed_path(arguments: str) -> str | None:
    """The path of `Remove-Item [-Force] [-Path] PATH -Recurse …`: its first argument that is not an option."""
    for token in _PWSH_ARG.findall(arguments):
        if not str(token).startswith("-"):
            return str(token).strip("'\"")
    return None


def nox_sessions(code: str) -> list[str]:
    """The command lines a noxfile's `session.run("prog", "arg", …)` calls run."""
    lines = [command_line(list(quoted(m.group(1)))) for m in list(_SESSION_RUN.finditer(code[: 1 << 16]))[:32]]
    return [line for line in lines if line]


def other_languages(code: str) -> list[str]:
    """Command lines that R, Julia, PowerShell, C# scripts, Stata, SAS and noxfiles run (see the patterns above)."""
    text = code[: 1 << 16]
    out = [m.group(1) for m in _R_SYSTEM.finditer(text)][:32]
    out += [shlex.join([m.group(1), *quoted(m.group(2))]) for m in _R_SYSTEM2.finditer(text)][:32]
    out += [f"rm -rf {shell_path(m.group(1))}" for m in _R_UNLINK.finditer(text)][:32]
    out += [f"{m.group(2)} | {m.group(3)}" if m.group(3) else m.group(2) for m in _JULIA_RUN.finditer(text)][:32]
    removed = (_removed_path(m.group(1)) for m in _PWSH_REMOVE.finditer(text))
    out += [f"rm -rf {shell_path(p)}" for p in removed if p][:32]
    out += [f"{m.group(1)} {m.group(2)}".replace('\\"', '"') for m in _DOTNET_START.finditer(text)][:32]
    out += [m.group(1) for m in _STATA_SHELL.finditer(text)][:32]
    out += [m.group(2) or m.group(3) for m in _SAS_SHELL.finditer(text)][:32]
    out += code_paths.deletes(text)
    return out + nox_sessions(text)


def shell_handoffs(code: str) -> list[str]:
    """The command lines ``code`` hands to a shell as string literals (see _SHELL_HANDOFF), and the programs
    it starts with literal arguments (_ARGV_HANDOFF; an argument it computes after them is unknown)."""
    out = []
    text = code[: 1 << 16]
    for match in list(_SHELL_HANDOFF.finditer(text))[:32]:
        line = match.group(1) if match.group(1) is not None else match.group(2)
        out.append(line.replace('\\"', '"').replace("\\'", "'"))
    for match in list(_CMAKE_COMMAND.finditer(text))[:32]:
        try:
            words = shlex.split(match.group(1).replace("${CMAKE_COMMAND}", "cmake"))
        except ValueError:
            continue
        if words:
            out.append(shlex.join(words))
    out.extend(m.group(1) for m in list(_SCALA_PROCESS.finditer(text))[:32])
    out.extend(m.group(1) for m in list(_GROOVY_EXECUTE.finditer(text))[:32])
    for match in list(_CMAKE_REMOVE.finditer(text))[:32]:
        try:
            paths = shlex.split(match.group(2))
        except ValueError:
            continue
        if paths:  # `$ENV{HOME}` is the environment's, as `${HOME}` is to a shell; CMake's own variables stay words
            out.append(" ".join(["rm", "-rf" if match.group(1) else "-f", *(_CMAKE_ENV.sub(
                lambda m: "'\"${" + m.group(1) + "}\"'", shlex.quote(p)) for p in paths)]))
    for match in list(_ARGV_HANDOFF.finditer(text))[:32]:
        # An argument with interpolation (`'$home/.gradle'` in Dart, `"${dir}/x"` in Kotlin) is computed.
        argv: list[str | None] = [None if _INTERPOLATION.search(a) else a for a in quoted(match.group(1))]
        argv += [None] if match.group(2) else []
        if argv and argv[0] not in ("sh", "bash", "/bin/sh", "/bin/bash", "zsh"):  # those are _SHELL_HANDOFF's
            line = command_line(argv)
            if line:
                out.append(line)
    return out


# A new file each time round: a name computed in the call (`open(f'/tmp/c/{uuid4()}', 'w')`,
# writeFileSync(`out/${i}.bin`, …), `File.write("x#{n}", …)`).
_WRITES_FILES = re.compile(r"""\b(?:open|write_text|write_bytes|writeFileSync|writeFile|WriteFile|File\.write"""
                           r"""|file_put_contents|fopen)\s*\(\s*(?:f['"]|`[^`\n]*\$\{|["'][^"'\n]*(?:\#\{|\{\w)"""
                           r"""|[\w.]+\s*\+|["'][^"'\n]*["']\s*(?:\+|%|\.format))""")
_LEAVES = re.compile(r"\b(?:break|return|exit|quit|raise|throw)\b|sys\.exit|process\.exit")


def floods_disk(code: str) -> bool:
    """Files written in an endless loop nothing leaves (`while True: open(f'/tmp/c/{uuid4()}', 'w')…`)."""
    text = code[: 1 << 16]
    return bool(_ENDLESS.search(text)) and bool(_WRITES_FILES.search(text)) and not _LEAVES.search(text)


_VERB_CATEGORY = {
    **dict.fromkeys(("delete", "destroy", "purge", "wipe", "erase", "terminate", "deregister", "decommission",
                     "deprovision", "nuke", "delete_all", "destroy_all"), cat.INFRA_DESTROY),
    **dict.fromkeys(("deploy", "undeploy", "redeploy", "rollback", "promote", "transition", "failover"),
                    cat.INFRA_CHANGE),
    **dict.fromkeys(("upload", "publish", "push_to"), cat.PUBLISH),
    "sendmail": cat.OUTWARD_MESSAGE,
}


def sdk_verbs(code: str, language: str | None) -> list[str]:
    """The categories of the client-library calls in ``code`` (see the module's docstring)."""
    text = code[: 1 << 17]
    out: list[str] = []
    for match in _COMPOUND.finditer(text):
        verb, rest = match.group(1).lower(), match.group(2)
        name = match.group(0)[1:].split("(", 1)[0].strip()
        prefixed = name.lower().startswith(("begin_", "start_", "async_", "batch_", "bulk_"))
        if not rest and not prefixed:
            continue  # a bare `.delete(` is for _BARE to judge, by language
        if language is None and not name[len(verb):].startswith("_") and not prefixed:
            continue  # Go, Java, Kotlin: `s.DeleteVehicle(…)` is how every method of the project is named
        if _LOCAL_COMPOUNDS.match(name) or (verb == "terminate" and not rest):
            continue
        out.append(_VERB_CATEGORY[verb])  # every verb _COMPOUND names has its category
    bare = _BARE if language == "python" else _BARE_RUBY if language == "ruby" else None
    if bare is not None:
        out.extend(_VERB_CATEGORY[m.group(1).lower()] for m in bare.finditer(text))
    if _WIPES.search(text):
        out.append(cat.DATABASE_DESTROY)
    if _OPERATION_OBJECT.search(text):
        out.append(cat.INFRA_DESTROY)
    if _DROPS.search(text) or _SCHEDULED_DELETION.search(text) or (
            service_calls.CLOUD_SDK.search(text) and _CLOUD_REMOVES.search(text)):
        out.append(cat.INFRA_DESTROY)
    if _SENDS.search(text) or _MONEY.search(text) or _REFUNDS.search(text) or (
            _MESSAGING_SDK.search(text) and _MESSAGE_CREATE.search(text)) or (
            language == "php" and _PHP_MAIL.search(text)):
        out.append(cat.OUTWARD_MESSAGE)
    if _MINTS.search(text):
        out.append(cat.CREDENTIAL_CREATION)
    if _DEVICE_CONFIG.search(text) or (_NETWORK_SDK.search(text) and _NETWORK_COMMIT.search(text)):
        out.append(cat.INFRA_CHANGE)
    if _PRODUCER.search(text) and _PRODUCE.search(text) and not _LOCAL_BROKER.search(text):
        out.append(cat.DATABASE_CHANGE)
    return out


# A download saved to a file by a program's own API (`copy('https://…/installer', 'setup.php')`, `urlretrieve(URL,
# PATH)`, `Invoke-WebRequest URL -OutFile x.ps1`, `file_put_contents('x', file_get_contents('https://…'))`).
_SAVES_DOWNLOAD = re.compile(r"""\b\w+\s*\(\s*["'](?:https?|ftp)://[^"'\s]+["']\s*,\s*["']([^"'\s]{1,400})["']"""
                             r"""|\bfile_put_contents\s*\(\s*["']([^"'\s]{1,400})["']\s*,\s*file_get_contents\s*\(\s*"""
                             r"""["'](?:https?|ftp)://|\b(?:Invoke-WebRequest|iwr)\b[^\n]{0,400}?-OutFile\s+["']?"""
                             r"""([^"'\s]{1,400})""", re.I)


def saved_downloads(call: Invocation, code: str) -> None:
    """Files a program saves from the network hold downloaded bytes: running one later in the line (or in a
    later call of the run) runs code nobody reviewed, as after `curl -o`."""
    for match in list(_SAVES_DOWNLOAD.finditer(code[: 1 << 16]))[:16]:
        call.download(Word(next(g for g in match.groups() if g is not None)))


def judge(call: Invocation, code: str, language: str | None) -> None:
    """Flag what ``code`` (in ``language``: python, javascript, ruby, perl, php; None for one with no
    parser here) says it does."""
    saved_downloads(call, code)
    lower = code.lower()
    if any(s in lower for s in _SOCKET) and any(s in lower for s in _SPAWN):
        call.flag(cat.REVERSE_SHELL)
    if any(s in lower for s in _FETCH) and any(s in lower for s in _RUN):
        call.flag(cat.REMOTE_CODE)
    if _UPLOADS.search(code) and _READS_FILE.search(code) and any(
            not hostnames.is_local(h) for h in hostnames.url_hosts(code)[:16]):
        call.flag(cat.EXFILTRATION)
    if "fork" in lower and ("while" in lower or "loop" in lower or "for(;;)" in lower or "until" in lower):
        call.flag(cat.FORK_BOMB)
    if _COMPUTED_NAME.search(code):
        call.flag(cat.DYNAMIC_COMMAND)  # `require('child' + '_process')`, `m['exec' + 'Sync'](…)`: named at run time
    if _REDIS_CLIENT.search(code):
        call.flag(cat.GATEWAY_STATE)  # a Redis client library: the gateway's decisions live in a Redis
    if (_WALKS_ENVIRONMENT.search(code) or _PRINTS_SECRET.search(code) or _PRINTS_SECRET_ATTRIBUTE.search(code)
            or _SECRET_MANAGER_READ.search(code) or _DIRECTORY_SECRET.search(code)):
        call.flag(cat.CREDENTIAL_ACCESS)  # the environment walked, a secret printed or fetched
    for url in _URL_IN_CODE.findall(code[: 1 << 16])[:64]:
        services.judge(call, "POST", [url], verbs_in_path=False)  # a webhook named in code is there to be posted to
    service_calls.judge(call, code)  # requests made with their method, writes through a credentialed client
    local_db = re.search(r"\b(?:sqlite3|duckdb|better-sqlite3|:memory:)\b", code) is not None
    for statement in [] if local_db else _SQL_STRING.findall(code[: 1 << 16])[:32]:
        effect = sql_effect(statement[1])
        if effect in (cat.DATABASE_DESTROY, cat.DATABASE_CHANGE):
            # `cur.execute("TRUNCATE trips")`, `…execute("UPDATE bans SET …")` through a database driver: as
            # the database's own client would be judged (`psql -c …`)
            call.flag(effect)
    if language is None:  # a language with no parser here: its hand-offs to a shell are read from the text
        for line in shell_handoffs(code) + other_languages(code):
            call.run_script(line)
        if _PWSH_IEX.search(code):
            call.flag(cat.REMOTE_CODE)  # `iex (iwr https://…)`: downloaded and run
        if _PWSH_PERSIST.search(code):
            call.flag(cat.PERSISTENCE)
        if _PWSH_SEND.search(code):
            call.flag(cat.OUTWARD_MESSAGE)  # mail or chat through Exchange, Graph, Teams, Slack
        if _PWSH_PLAIN_SECRET.search(code):
            call.flag(cat.CREDENTIAL_ACCESS)  # a vault's secrets turned into plain text
    elif language == "python":
        for session in nox_sessions(code):
            call.run_script(session)
    if floods_memory(code) or floods_disk(code):
        call.flag(cat.RESOURCE_EXHAUSTION)
    for category in dict.fromkeys(sdk_verbs(code, language)):
        call.flag(category)
    for host in hostnames.url_hosts(code):
        call.host(host)
    for match in list(HOME_JOIN.finditer(code[: 1 << 16]))[:32]:
        call.read(Word(home_parts(match.group(1))))  # `path.join(os.homedir(), '.kube', 'config')`
    for match in _QUOTED_PATH.finditer(code):
        if match.group(3) is not None:
            call.read(Word("~" + match.group(3)))  # `${homedir()}/.aws/credentials`
        elif match.group(2) not in (".", ".."):
            call.read(Word(match.group(2)))  # any secret the text names counts as read
