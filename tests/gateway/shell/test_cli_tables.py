"""Powerful CLIs judged by their known-safe tables (gateway/shell/clis.py, gateway/shell/cli_tables/).

Each family: read-only work stays clean (global options first, dry runs, plans), anything not known safe is a
change, known destroys and secret printers are what they are — in spellings the tables never list."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.shell import analyze, clis
from gateway.shell import categories as cat

CWD = "/home/agent/work/shop"
HOME = "/home/agent"

CASES = {
    cat.INFRA_DESTROY: [
        "kubectl -n payments --context prod delete deploy api", "helm --kube-context prod-eu uninstall checkout",
        "terragrunt run-all destroy --terragrunt-non-interactive",
        "aws --region eu-west-1 s3 sync ./dist s3://b --delete",
        "aws kms schedule-key-deletion --key-id 1234 --pending-window-in-days 7", "gcloud run services delete api",
        "gcloud --project p compute instances stop vm-1", "az group delete -n rg-prod --yes",
        "gh api -X DELETE repos/o/r",
        "gh repo edit o/r --visibility public", "fly apps destroy shop-staging -y",
        "heroku pg:reset -a shop --confirm shop",
        "doctl compute droplet delete web-1", "pulumi destroy --yes -s prod", "vercel rm shop-preview --yes",
        "docker --context prod volume rm pgdata", "eksctl delete cluster --name prod",
    ],
    cat.INFRA_CHANGE: [
        "kubectl apply -f k8s/", "kubectl -n prod scale deploy api --replicas=0", "helm upgrade --install api ./chart",
        "terraform apply -auto-approve", "gcloud run deploy api --image gcr.io/p/api", "fly deploy", "vercel --prod",
        "aws lambda update-function-configuration --function-name f --timeout 30", "pulumi up --yes",
        "netlify deploy --prod", "az webapp config appsettings set -n app -g rg --settings X=1",
        "gh pr merge 12 --squash",
    ],
    cat.DATABASE_DESTROY: [
        "bundle exec rails db:drop", "python manage.py flush --noinput", "php artisan migrate:fresh --seed",
        "npx prisma migrate reset --force", "alembic downgrade base", "flask db downgrade", "bq rm -f -t ds.events",
        "docker exec db psql -U app -c 'DROP TABLE users'", "sequelize db:migrate:undo:all",
    ],
    cat.PUBLISH: [
        "docker buildx build --platform linux/amd64 --push -t ghcr.io/o/x .", "mvn -DskipTests -P release deploy",
        "./gradlew publishToMavenCentral", "python -m twine upload dist/*", "npm deprecate pkg@1 'old'",
        "yarn workspace @o/sdk npm publish", "cargo publish", "skopeo copy docker-archive:x.tar docker://ghcr.io/o/x",
    ],
    cat.CREDENTIAL_ACCESS: [
        "terraform output -json", "terraform output -raw db_password", "kubectl get secret db -o yaml",
        "kubectl config view --raw", "aws secretsmanager get-secret-value --secret-id prod/db",
        "gcloud secrets versions access latest --secret=api-key", "az keyvault secret show --vault-name v -n k",
        "sops -d secrets.enc.yaml", "heroku config -a shop", "vercel env pull .env.local", "op read op://vault/item/pw",
    ],
    cat.CREDENTIAL_CREATION: [
        "aws iam create-access-key --user-name ci", "gcloud iam service-accounts keys create k.json --iam-account a@b",
        "gh repo deploy-key add key.pub", "az ad sp create-for-rbac -n ci", "npm token create", "vault token create",
    ],
    cat.OUTWARD_MESSAGE: [
        "stripe charges create --amount 2000 --currency eur", "aws ses send-email --from a@b --to c@d",
        "aws sns publish --topic-arn arn --message hi", "gh issue comment 3 --body done", "sendmail -t < mail.txt",
        "twilio api:core:messages:create --to +1 --from +2 --body hi",
    ],
    cat.PERSISTENCE: ["npm config set script-shell /tmp/wrap.sh", "yarn config set node-options '--require x'"],
    # machine-learning data and experiment stores, GPU machines, game and site publishers (mlops.yaml)
    cat.DESTRUCTIVE_DELETE: ["dvc --cd ml gc -w --cloud -f", "dvc exp remove --all-commits"],
    cat.DATABASE_DESTROY + " ": ["mlflow gc --backend-store-uri postgresql://m@db/mlflow --older-than 0d",
                                 "mlflow experiments delete --experiment-id 4"],
    cat.INFRA_CHANGE + " ": ["sky launch -c ft-a100 configs/sky/finetune.yaml --gpus A100:8 --use-spot -y",
                             "sky exec ft train.yaml"],
    cat.INFRA_DESTROY + " ": ["sky down -a -y", "pixi run python scripts/featurestore.py drop-all --env prod --yes"],
    cat.SYSTEM_CONFIG: ["sudo nvidia-smi -i 0 -pl 150", "nvidia-smi --gpu-reset -i 1", "nvidia-smi -pm 1",
                        "nvidia-smi mig -cgi 9,9 -C", "nvidia-smi mig -i 0 -dgi"],
    # message streams, object stores, backup repositories (cli_tables/storage.yaml), OpenStack, Nix, agent CLIs
    cat.DATABASE_DESTROY + "  ": ["nats --context prod stream purge ORDERS -f", "nats kv rm sessions --force",
                                  "nats consumer delete EVENTS billing -f", "pgbackrest --stanza=main stanza-delete",
                                  "pgbackrest --stanza=main --type=time restore --delta",
                                  "restic -r s3:s3.example.com/bk prune", "restic forget --keep-within 1d",
                                  "borg delete ssh://bk@host/./repo::2026-11-01", "borgmatic compact"],
    cat.INFRA_DESTROY + "  ": ["mc rm --recursive --force store/uploads", "mc rb store/tmp-bucket",
                               "openstack --os-cloud prod volume delete data-1", "openstack project purge --project x"],
    cat.CREDENTIAL_CREATION + " ": ["openstack ec2 credentials create", "mc admin user svcacct add store agent",
                                    "openstack keypair create deploy > deploy.pem"],
    cat.CREDENTIAL_ACCESS + " ": ["mc alias list", "openstack token issue -f value -c id",
                                  "glab config get token", "restic key list"],
    cat.GATE_TAMPER: ["claude mcp add fs -- npx -y some-fs-server", "claude config set -g autoUpdates false",
                      "gemini mcp add tools http://localhost:7000", "codex --yolo exec 'fix it'",
                      "qwen extensions install https://example.com/ext"],
    cat.PACKAGE_RUNNER: ["nix run github:someone/tool -- --apply", "nix run nixpkgs#cowsay hi",
                         "nix develop github:someone/devshell -c make"],
    cat.PERSISTENCE + " ": ["home-manager switch --flake .#agent"],
    cat.SYSTEM_CONFIG + " ": ["sudo nixos-rebuild switch", "darwin-rebuild switch --flake ."],
    cat.PUBLISH + "  ": ["cargo release minor --execute", "cargo release -x patch"],
    cat.PUBLISH + " ": ["steamcmd +login bot +run_app_build \"$PWD/steam/app_build_1.vdf\" +quit",
                        "ghp-import -n -p -f docs/_build/html", "mkdocs gh-deploy --force",
                        "dvc push -r origin", "butler push out/ o/g:win"],
}
READ_ONLY = [
    "kubectl --context prod -n payments get pods -o wide", "kubectl logs -f deploy/api",
    "kubectl apply --dry-run=client -f k8s/",
    "kubectl diff -f k8s/", "helm -n prod list", "helm template ./chart", "terraform -chdir=infra plan -destroy",
    "terraform plan -out plan.tfplan", "terraform output -raw cdn_domain", "terragrunt run-all plan",
    "aws --profile prod ec2 describe-instances", "aws s3 ls s3://bucket", "aws s3 cp s3://b/data.csv ./data/",
    "aws logs tail /aws/lambda/f --follow", "gcloud --project p run services list", "gcloud config list",
    "az vm list -o table", "gh pr list", "gh api repos/o/r/pulls", "gh secret list", "fly status", "fly logs",
    "heroku logs --tail", "pulumi preview", "pulumi stack output url", "docker build -t x .", "docker compose up -d",
    "docker compose down", "docker run --rm -v $PWD:/app node:20 npm test", "docker ps -a", "npm publish --dry-run",
    "cargo publish --dry-run", "bundle exec rails db:migrate", "python manage.py migrate", "alembic upgrade head",
    "php artisan test", "npx prisma generate", "mvn -q test", "./gradlew build", "op --version", "sops -e x.yaml",
    "pixi run -e cuda python train.py", "pixi run test", "pixi install",
    "dvc pull", "dvc repro", "dvc exp show --md", "dvc gc --dry", "mlflow ui --port 5001",
    "mlflow runs list --experiment-id 3", "sky status --refresh", "sky launch --dryrun train.yaml", "nvidia-smi",
    "nvidia-smi --query-gpu=name,memory.used --format=csv -l 5", "nvidia-smi topo -m", "nvidia-smi mig -lgi",
    "steamcmd +login anonymous +app_update 90 validate +quit", "ghp-import -n docs/_build/html",
    "mkdocs build --strict", "wrangler d1 execute app-db --local --command 'DROP TABLE scratch'",
    "wrangler kv key delete --local --binding CACHE k",
    "nats stream info ORDERS", "nats kv ls", "pgbackrest --stanza=main info", "restic -r /srv/bk snapshots",
    "restic forget --keep-last 3 --dry-run", "borg list /srv/borg", "mc ls store/uploads", "mc du store",
    "openstack server list --long", "openstack image show ubuntu", "claude mcp list", "claude -p 'explain x'",
    "gemini -p 'summarise'", "nix build .#app", "nix run .#dev", "nix flake check", "nix develop -c pytest -q",
    "nix-shell -p jq --run 'jq . data.json'", "home-manager build", "nixos-rebuild build", "cargo release patch",
    "consul acl policy list", "consul acl policy read -name api", "vault token capabilities secret/data/x",
    "glab ci lint", "nomad fmt -check infra/", "nomad alloc exec -task api 3f2a php artisan migrate:status",
]


def categories(command: str) -> frozenset[str]:
    return analyze(command, CWD, HOME).categories


@pytest.mark.parametrize(("category", "command"), [(c.strip(), x) for c, xs in CASES.items() for x in xs])
def test_what_a_powerful_cli_does_is_flagged(category: str, command: str) -> None:
    assert category in categories(command), categories(command)


@pytest.mark.parametrize("command", READ_ONLY)
def test_known_safe_work_stays_clean(command: str) -> None:
    assert not categories(command) - {cat.NETWORK_LISTEN}, categories(command)


def test_every_table_loads_and_names_known_categories() -> None:
    tables = clis.tables()
    assert {"kubectl", "aws", "gcloud", "az", "terraform", "helm", "docker", "gh", "rails", "stripe"} <= set(tables)
    for table in tables.values():
        assert table.change in cat.ALL_CATEGORIES and table.destroy in cat.ALL_CATEGORIES


def test_a_table_with_an_unknown_key_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown keys"):
        clis._table("x", "tool", {"raed": ["get"]})
    with pytest.raises(ValueError, match="unknown category"):
        clis._table("x", "tool", {"change": "infra_chnage"})


def test_a_subcommand_nobody_listed_is_a_change_not_an_allow() -> None:
    """The point of known-safe tables: a new verb in the next release is not waved through."""
    assert cat.INFRA_CHANGE in categories("kubectl frobnicate deployment api")
    assert cat.INFRA_CHANGE in categories("gcloud run services frobnicate api")


def test_commands_handed_to_a_container_or_a_pod_are_followed() -> None:
    assert cat.DESTRUCTIVE_DELETE in categories("kubectl exec -it api-0 -- rm -rf /data")
    assert cat.DATABASE_DESTROY in categories("docker compose exec db psql -c 'TRUNCATE orders'")
    assert cat.DATABASE_DESTROY in categories("pnpm --filter api exec prisma migrate reset --force")
    assert not categories("docker exec api ls /app")


def test_flag_conditions_read_values_in_every_spelling() -> None:
    for spelling in ("-X DELETE", "-XDELETE", "--method=DELETE", "--method DELETE"):
        assert cat.INFRA_DESTROY in categories(f"gh api {spelling} repos/o/r/hooks/1"), spelling
    assert cat.INFRA_CHANGE in categories("gh api -f title=x repos/o/r/issues")  # a field makes it a POST
    assert not categories("gh api -X GET repos/o/r")


def test_an_unlisted_subcommand_named_for_looking_is_read_unless_a_verb_comes_first() -> None:
    assert categories("consul acl binding-rule list") == frozenset()
    assert categories("kubectl -n prod scale deployment status --replicas=0") == {cat.INFRA_CHANGE}
    assert categories("nomad var get -item=password app/db") == {cat.CREDENTIAL_ACCESS}  # a value: never by convention


def test_launchers_that_take_a_command_after_an_option() -> None:
    assert cat.DATABASE_DESTROY in categories("nix-shell -p postgresql --run 'dropdb -h db.internal shop'")
    assert cat.DATABASE_DESTROY in categories("nix shell nixpkgs#postgresql -c psql -h db -c 'DROP TABLE t'")
    assert cat.DESTRUCTIVE_DELETE in categories("nix develop --command rm -rf ~/.config")
    assert cat.DESTRUCTIVE_DELETE in categories("nomad alloc exec 9a1b sh -c 'rm -rf /var/lib/app'")


@pytest.mark.parametrize(("command", "category"), [
    ("cargo sqlx database reset -y", cat.DATABASE_DESTROY),
    ("cargo shuttle deploy", cat.INFRA_CHANGE),
    ("cargo lambda deploy --iam-role arn:aws:iam::1:role/x", cat.INFRA_CHANGE),
    ("dotnet octo push --package app.1.0.nupkg --server https://octo.example", cat.PUBLISH),
])
def test_a_subcommand_the_tool_does_not_have_runs_its_plugin(command: str, category: str) -> None:
    assert category in analyze(command, CWD, HOME).categories


@pytest.mark.parametrize("command", ["cargo nextest run", "cargo sqlx migrate run", "cargo tauri build",
                                     "cargo build --release", "dotnet outdated", "dotnet publish -c Release"])
def test_everyday_plugins_and_own_subcommands_stay_clean(command: str) -> None:
    assert not analyze(command, CWD, HOME).categories
