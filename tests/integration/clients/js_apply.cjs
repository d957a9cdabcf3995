// @kubernetes/client-node 1.x applies server-side through its typed API (PatchStrategy.ServerSideApply): a
// ConfigMap created through apply, a conflicting apply by another manager refused with 409, then forced. Prints one
// line per step; exits non-zero on the first failure. Usage: NODE_PATH=<dir with @kubernetes/client-node> node
// js_apply.cjs KUBECONFIG
const k8s = require('@kubernetes/client-node');
const assert = require('node:assert');

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const core = kc.makeApiClient(k8s.CoreV1Api);
const namespace = 'default';
const applyType = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);

function apply(data, fieldManager, force = undefined) {
  const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'js-applied' }, data };
  return core.patchNamespacedConfigMap({ name: 'js-applied', namespace, body, fieldManager, force }, applyType);
}

(async () => {
  const created = await apply({ a: '1' }, 'js');
  assert.deepEqual(created.metadata.managedFields.map((e) => [e.manager, e.operation]), [['js', 'Apply']]);
  console.log(`applied ${created.metadata.name} ${created.metadata.managedFields[0].manager}`);
  try {
    await apply({ a: '2' }, 'js-other');
    throw new Error('a conflicting apply was accepted');
  } catch (error) {
    if (!(error instanceof k8s.ApiException)) throw error;
    const text = typeof error.body === 'string' ? error.body : JSON.stringify(error.body);
    assert.match(text, /conflict with \\"js\\": \.data\.a/);
    console.log(`conflict ${error.code}`);
  }
  const forced = await apply({ a: '2' }, 'js-other', true);
  assert.equal(forced.data.a, '2');
  console.log(`forced ${forced.metadata.name}`);
  await core.deleteNamespacedConfigMap({ name: 'js-applied', namespace });
})().catch((error) => {
  console.error(error.body ?? error);
  process.exit(1);
});
