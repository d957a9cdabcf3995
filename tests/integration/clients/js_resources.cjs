// @kubernetes/client-node 1.x against kapi: resources issue 18 added, each created, read, listed, patched and
// deleted through the client's typed APIs. Prints one line per resource; exits non-zero on the first failure.
// Usage: NODE_PATH=<dir with @kubernetes/client-node> node js_resources.cjs KUBECONFIG
const k8s = require('@kubernetes/client-node');
const assert = require('node:assert');

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const namespace = 'default';
const podTemplate = {
  metadata: { labels: { app: 'js' } },
  spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' },
};

async function check(name, api, kind, body, namespaced = true) {
  const scope = namespaced ? { namespace } : {};
  const created = await api[`create${namespaced ? 'Namespaced' : ''}${kind}`]({ ...scope, body });
  const objectName = created.metadata.name;
  const read = await api[`read${namespaced ? 'Namespaced' : ''}${kind}`]({ ...scope, name: objectName });
  assert.equal(read.metadata.uid, created.metadata.uid);
  const listed = await api[`list${namespaced ? 'Namespaced' : ''}${kind}`](scope);
  assert.ok(listed.items.some((item) => item.metadata.name === objectName), `${name} not listed`);
  const patched = await api[`patch${namespaced ? 'Namespaced' : ''}${kind}`](
    { ...scope, name: objectName, body: { metadata: { labels: { patched: 'yes' } } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  assert.equal(patched.metadata.labels.patched, 'yes');
  await api[`delete${namespaced ? 'Namespaced' : ''}${kind}`]({ ...scope, name: objectName });
  console.log(`${name} ok`);
}

(async () => {
  await check('horizontalpodautoscalers.v2', kc.makeApiClient(k8s.AutoscalingV2Api), 'HorizontalPodAutoscaler', {
    metadata: { name: 'js-hpa' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3 },
  });
  await check('jobs', kc.makeApiClient(k8s.BatchV1Api), 'Job',
    { metadata: { name: 'js-job' }, spec: { template: podTemplate } });
  await check('cronjobs', kc.makeApiClient(k8s.BatchV1Api), 'CronJob', {
    metadata: { name: 'js-cron' },
    spec: { schedule: '@hourly', jobTemplate: { spec: { template: podTemplate } } },
  });
  await check('ingresses', kc.makeApiClient(k8s.NetworkingV1Api), 'Ingress', {
    metadata: { name: 'js-ing' },
    spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
  });
  await check('poddisruptionbudgets', kc.makeApiClient(k8s.PolicyV1Api), 'PodDisruptionBudget', {
    metadata: { name: 'js-pdb' },
    spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'js' } } },
  });
  await check('priorityclasses', kc.makeApiClient(k8s.SchedulingV1Api), 'PriorityClass',
    { metadata: { name: 'js-priority' }, value: 10 }, false);
  await check('storageclasses', kc.makeApiClient(k8s.StorageV1Api), 'StorageClass',
    { metadata: { name: 'js-sc' }, provisioner: 'example.com/js' }, false);
  await check('persistentvolumeclaims', kc.makeApiClient(k8s.CoreV1Api), 'PersistentVolumeClaim', {
    metadata: { name: 'js-claim' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  await check('events.events.k8s.io', kc.makeApiClient(k8s.EventsV1Api), 'Event', {
    // kube reads a MicroTime with exactly six fractional digits (RFC3339Micro): the client's V1MicroTime writes
    // them, a plain Date's three are refused.
    metadata: { name: 'js-event' }, eventTime: new k8s.V1MicroTime('2026-01-01T00:00:00Z'),
    reportingController: 'example.com/js',
    reportingInstance: 'js-1', action: 'Testing', reason: 'Tested', type: 'Normal',
    regarding: { kind: 'Pod', name: 'p', namespace },
  });
})().catch((error) => {
  console.error(error.body ?? error);
  process.exit(1);
});
