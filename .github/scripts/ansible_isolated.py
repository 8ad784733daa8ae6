"""Run one Ansible command with nothing from the runner's home or earlier jobs.

    python .github/scripts/ansible_isolated.py .venv/bin/ansible-playbook -i INV playbooks/x.yml

Ansible loads plugins, configuration and collections from the user's home (`~/.ansible.cfg`,
`~/.ansible/plugins/<kind>/`, `~/.ansible/collections`) and from system folders
(`/usr/share/ansible/plugins`): on a runner that another job could write to, a planted
callback plugin would run inside the job that holds the SSH key and the CA passphrase. So:

- HOME is a new, empty 0700 folder (removed afterwards), and ANSIBLE_HOME lies inside it;
- ANSIBLE_CONFIG is the repository's ansible.cfg;
- every plugin, module, role and collection path points into the repository (a kind the
  repository has no folder for points at a folder that does not exist: built-in plugins
  only), collections are those installed in the job's own venv;
- every other inherited ANSIBLE_* variable is dropped, except the connection settings the job
  sets itself (KEPT below); PYTHONPATH and friends are dropped too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# ansible-core's plugin path settings (lib/ansible/config/base.yml): env name -> repo folder
PLUGIN_PATHS = {
    "ANSIBLE_ACTION_PLUGINS": "plugins/action",
    "ANSIBLE_BECOME_PLUGINS": "plugins/become",
    "ANSIBLE_CACHE_PLUGINS": "plugins/cache",
    "ANSIBLE_CALLBACK_PLUGINS": "plugins/callback",
    "ANSIBLE_CLICONF_PLUGINS": "plugins/cliconf",
    "ANSIBLE_CONNECTION_PLUGINS": "plugins/connection",
    "ANSIBLE_DOC_FRAGMENT_PLUGINS": "plugins/doc_fragments",
    "ANSIBLE_FILTER_PLUGINS": "plugins/filter",
    "ANSIBLE_HTTPAPI_PLUGINS": "plugins/httpapi",
    "ANSIBLE_INVENTORY_PLUGINS": "plugins/inventory",
    "ANSIBLE_LIBRARY": "plugins/modules",
    "ANSIBLE_LOOKUP_PLUGINS": "plugins/lookup",
    "ANSIBLE_MODULE_UTILS": "plugins/module_utils",
    "ANSIBLE_NETCONF_PLUGINS": "plugins/netconf",
    "ANSIBLE_STRATEGY_PLUGINS": "plugins/strategy",
    "ANSIBLE_TERMINAL_PLUGINS": "plugins/terminal",
    "ANSIBLE_TEST_PLUGINS": "plugins/test",
    "ANSIBLE_VARS_PLUGINS": "plugins/vars",
    "ANSIBLE_ROLES_PATH": "roles",
}
# set by the job's own earlier steps (the key file, pinned host keys, the SSH user)
KEPT = (
    "ANSIBLE_PRIVATE_KEY_FILE",
    "ANSIBLE_SSH_COMMON_ARGS",
    "ANSIBLE_HOST_KEY_CHECKING",
    "ANSIBLE_REMOTE_USER",
)
DROPPED = ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONHOME")


def isolated_env(environ: dict[str, str], home: Path, root: Path = ROOT) -> dict[str, str]:
    """The environment for one Ansible command with `home` as its fresh HOME."""
    env = {
        k: v
        for k, v in environ.items()
        if not (k.startswith("ANSIBLE_") and k not in KEPT) and k not in DROPPED
    }
    env.update(
        {
            "HOME": str(home),
            "ANSIBLE_HOME": str(home / ".ansible"),
            "ANSIBLE_CONFIG": str(root / "ansible.cfg"),
            "ANSIBLE_COLLECTIONS_PATH": str(home / "collections"),
            "ANSIBLE_LOCAL_TEMP": str(home / "tmp"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "PYTHONNOUSERSITE": "1",
        }
    )
    env.update({name: str(root / folder) for name, folder in PLUGIN_PATHS.items()})
    return env


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: ansible_isolated.py PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    base = os.environ.get("RUNNER_TEMP") or None
    home = Path(tempfile.mkdtemp(prefix="ansible-home.", dir=base))  # 0700, new every run
    try:
        return subprocess.run(
            argv, env=isolated_env(dict(os.environ), home), check=False
        ).returncode
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
