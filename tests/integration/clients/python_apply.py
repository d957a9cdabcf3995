#!/usr/bin/python3
"""Debian's python3-kubernetes (22.6) applies server-side through its dynamic client: a ConfigMap created through
apply, a conflicting apply by another manager refused with 409, then forced. Prints one line per step and exits
non-zero on the first failure. Usage: python_apply.py KUBECONFIG
"""
import sys

from kubernetes import client, config, dynamic
from kubernetes.dynamic.exceptions import ConflictError

config.load_kube_config(sys.argv[1])
configmaps = dynamic.DynamicClient(client.ApiClient()).resources.get(api_version="v1", kind="ConfigMap")


def applied(value, manager, force=None):
    # This client's REST layer sends an apply-patch+yaml body only when it is given as text: a YAML document.
    body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: py-applied\ndata:\n  a: "%s"\n' % value
    return configmaps.server_side_apply(body=body, name="py-applied", namespace="default", field_manager=manager,
                                        force_conflicts=force)


created = applied("1", "python")
entries = created.metadata.managedFields
assert [(e.manager, e.operation) for e in entries] == [("python", "Apply")], entries
print("created", created.metadata.name, flush=True)
try:
    applied("2", "python-other")
    sys.exit("a conflicting apply was accepted")
except ConflictError as error:
    body = error.body.decode() if isinstance(error.body, bytes) else error.body
    assert 'conflict with \\"python\\": .data.a' in body, body
    print("conflict", error.status, flush=True)
forced = applied("2", "python-other", force=True)
assert forced.data.a == "2", forced
print("forced", forced.metadata.name, flush=True)
configmaps.delete(name="py-applied", namespace="default")
