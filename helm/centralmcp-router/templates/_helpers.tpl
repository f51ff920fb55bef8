{{/*
Expand the name of the chart.
*/}}
{{- define "centralmcp-router.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Create a default fully qualified app name.
We truncate at 63 chars because some Kubernetes name fields are limited to this (by the DNS naming spec).
If release name contains chart name it will be used as a full name.
*/}}
{{- define "centralmcp-router.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Create chart name and version as used by the chart label.
*/}}
{{- define "centralmcp-router.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Common labels
*/}}
{{- define "centralmcp-router.labels" -}}
helm.sh/chart: {{ include "centralmcp-router.chart" . }}
{{ include "centralmcp-router.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: centralmcp
{{- end }}

{{/*
Selector labels
*/}}
{{- define "centralmcp-router.selectorLabels" -}}
app.kubernetes.io/name: {{ include "centralmcp-router.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Create the name of the service account to use
*/}}
{{- define "centralmcp-router.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "centralmcp-router.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The router image: a digest wins over the tag; the tag defaults to the chart's appVersion.
*/}}
{{- define "centralmcp-router.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
The ConfigMap holding the router config file, and the file's key in it.
*/}}
{{- define "centralmcp-router.configMapName" -}}
{{- .Values.config.existingConfigMap | default (printf "%s-config" (include "centralmcp-router.fullname" .)) }}
{{- end }}

{{- define "centralmcp-router.configKey" -}}
{{- if .Values.config.existingConfigMap }}
{{- .Values.config.existingConfigMapKey }}
{{- else }}
{{- "config.yaml" }}
{{- end }}
{{- end }}

{{/*
The Secret whose keys become the router's environment (cursor secret, backend credentials).
*/}}
{{- define "centralmcp-router.secretName" -}}
{{- .Values.secret.existingSecret | default (include "centralmcp-router.fullname" .) }}
{{- end }}

{{/*
True (non-empty) when no backends are configured and the chart serves the image's demo servers.
*/}}
{{- define "centralmcp-router.demoMode" -}}
{{- if and (not .Values.config.existingConfigMap) (empty .Values.config.backends) }}true{{ end }}
{{- end }}

{{/*
The demo config (config/demo.yaml of the repository) with absolute paths into the image, since
relative paths in the mounted file would be relative to /etc/centralmcp-router.
*/}}
{{- define "centralmcp-router.demoConfig" -}}
backends:
  files:
    transport: stdio
    command: node
    cwd: /app/demo/files
    args: [/app/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js, .]
    required: true
    timeoutMs: 30000
  memory:
    transport: stdio
    command: node
    args: [/app/node_modules/@modelcontextprotocol/server-memory/dist/index.js]
    env:
      MEMORY_FILE_PATH: /tmp/centralmcp-router-demo-memory.jsonl
    required: true
  everything:
    transport: stdio
    command: node
    args: [/app/node_modules/@modelcontextprotocol/server-everything/dist/index.js, stdio]
    required: false
policy:
  readOnly:
    allow: []
    # get-env returns the server process environment, which holds whatever secrets its `env` gets.
    deny: ["everything:get-env"]
# A demo: no authentication, which the router accepts off loopback only when told so (architecture §10).
auth:
  mode: none
  allowInsecure: true
{{- end }}

{{/*
The router config file (architecture §3): the demo when no backends are set, otherwise `backends`,
`policy` and `rateLimit` from values. Keys with null values are left out.
*/}}
{{- define "centralmcp-router.configFile" -}}
{{- $file := dict }}
{{- if include "centralmcp-router.demoMode" . }}
{{- $file = include "centralmcp-router.demoConfig" . | fromYaml }}
{{- else }}
{{- $_ := set $file "backends" .Values.config.backends }}
{{- if not .Values.config.auth }}
{{- fail "config.auth is required with your own backends: the router refuses unauthenticated callers on the pod's address (architecture §10). Use {mode: apiKeys, …} or {mode: jwt, …}, or {mode: none, allowInsecure: true} when something in front authenticates callers." }}
{{- end }}
{{- end }}
{{- range $key := list "policy" "rateLimit" "principalRateLimit" "auth" "access" "audit" "discovery" "writes" "publish" }}
{{- with get $.Values.config $key }}
{{- $_ := set $file $key (deepCopy .) }}
{{- end }}
{{- end }}
{{- if .Values.embeddingsServer.enabled }}
{{- $discovery := get $file "discovery" | default dict }}
{{- if hasKey $discovery "embeddings" }}
{{- fail "config.discovery.embeddings and embeddingsServer.enabled both name an embeddings endpoint: keep one (embeddingsServer fills discovery.embeddings with its own Service)" }}
{{- end }}
{{- $_ := set $discovery "embeddings" (include "centralmcp-router.embeddingsConfig" . | fromYaml) }}
{{- $_ := set $file "discovery" $discovery }}
{{- end }}
{{- if .Values.redis.enabled }}
{{- /* Shared buckets: the URL stays in a Secret, the config names its variable. */}}
{{- $rateLimit := get $file "rateLimit" | default dict }}
{{- $redis := dict "url" "${CENTRALMCP_REDIS_URL}" "fail" .Values.redis.fail "replicas" (include "centralmcp-router.redisReplicas" . | int) }}
{{- with .Values.redis.keyPrefix }}{{ $_ := set $redis "keyPrefix" . }}{{ end }}
{{- range $key := list "connectTimeoutMs" "commandTimeoutMs" }}
{{- $value := get $.Values.redis $key }}
{{- if not (kindIs "invalid" $value) }}{{ $_ := set $redis $key ($value | int) }}{{ end }}
{{- end }}
{{- $_ := set $rateLimit "store" "redis" }}
{{- $_ := set $rateLimit "redis" $redis }}
{{- $_ := set $file "rateLimit" $rateLimit }}
{{- end }}
{{- if ne .Values.trust.mode "off" }}
{{- /* Pinned definitions: the file lives on the trust volume, see trustVolume. */}}
{{- include "centralmcp-router.trustCheck" . }}
{{- $trust := dict "mode" .Values.trust.mode "pinsFile" (include "centralmcp-router.pinsFile" .) "approveNewBackends" .Values.trust.approveNewBackends }}
{{- if not (kindIs "invalid" .Values.trust.relistSeconds) }}{{ $_ := set $trust "relistSeconds" (.Values.trust.relistSeconds | int) }}{{ end }}
{{- $_ := set $file "trust" $trust }}
{{- else if not (kindIs "invalid" .Values.trust.relistSeconds) }}
{{- $_ := set $file "trust" (dict "mode" "off" "relistSeconds" (.Values.trust.relistSeconds | int)) }}
{{- end }}
{{- toYaml $file }}
{{- end }}

{{/*
Where the pins file lives in the pod: on the trust volume (trust.persistence).
*/}}
{{- define "centralmcp-router.pinsDir" -}}/var/lib/centralmcp-router{{- end }}
{{- define "centralmcp-router.pinsFile" -}}{{ include "centralmcp-router.pinsDir" . }}/pins.json{{- end }}

{{/*
The claim the pins file is kept on: trust.persistence.existingClaim, else the chart's own when
trust.persistence.create; empty: an emptyDir.
*/}}
{{- define "centralmcp-router.trustClaim" -}}
{{- if .Values.trust.persistence.existingClaim }}{{ .Values.trust.persistence.existingClaim }}
{{- else if .Values.trust.persistence.create }}{{ include "centralmcp-router.fullname" . }}-pins
{{- end }}
{{- end }}

{{/*
Refuses trust settings that would lose approvals or split the pins file between pods: enforce on
an emptyDir (every restart would quarantine everything again, or approve it all again with
approveNewBackends), and a created ReadWriteOnce claim for more than one pod.
*/}}
{{- define "centralmcp-router.trustCheck" -}}
{{- if ne .Values.trust.mode "off" }}
{{- if and (eq .Values.trust.mode "enforce") (not (include "centralmcp-router.trustClaim" .)) }}
{{- fail "trust.mode enforce needs trust.persistence.existingClaim or trust.persistence.create: in an emptyDir every approval is lost with the pod" }}
{{- end }}
{{- if and .Values.trust.persistence.create (not .Values.trust.persistence.existingClaim) (or .Values.autoscaling.enabled (gt (int .Values.replicaCount) 1)) (not (has "ReadWriteMany" .Values.trust.persistence.accessModes)) }}
{{- fail "trust.persistence.accessModes needs ReadWriteMany with more than one pod: every pod must read and write the same pins file" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The pods a rate is shared among while Redis cannot answer (fail open): redis.replicas, else the
most pods there can be (autoscaling.maxReplicas, or replicaCount), so the cluster never exceeds it.
*/}}
{{- define "centralmcp-router.redisReplicas" -}}
{{- if not (kindIs "invalid" .Values.redis.replicas) }}
{{- .Values.redis.replicas | int }}
{{- else if .Values.autoscaling.enabled }}
{{- .Values.autoscaling.maxReplicas | int }}
{{- else }}
{{- .Values.replicaCount | int }}
{{- end }}
{{- end }}

{{/*
Where the pod's CENTRALMCP_REDIS_URL comes from: redis.existingSecret, else redis.url in the
chart's Secret. Fails the render when redis.enabled has neither, or when redis.url has no chart
Secret to live in.
*/}}
{{- define "centralmcp-router.redisUrlCheck" -}}
{{- if .Values.redis.enabled }}
{{- if and (not .Values.redis.existingSecret) (not .Values.redis.url) }}
{{- fail "redis.enabled needs redis.url or redis.existingSecret: the chart does not install Redis, point it at yours" }}
{{- end }}
{{- if and .Values.redis.url (not .Values.redis.existingSecret) .Values.secret.existingSecret }}
{{- fail "redis.url is stored in the chart's Secret, which secret.existingSecret replaces: use redis.existingSecret instead" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The cursor HMAC key: from values; else the one already in the release's Secret (so upgrades keep
cursors valid); else a new random one. `lookup` answers nothing under `helm template`.
*/}}
{{- define "centralmcp-router.cursorSecret" -}}
{{- if .Values.secret.cursorSecret }}
{{- .Values.secret.cursorSecret }}
{{- else }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "centralmcp-router.fullname" .) }}
{{- $data := (get ($existing | default dict) "data") | default dict }}
{{- if hasKey $data "CENTRALMCP_ROUTER_CURSOR_SECRET" }}
{{- get $data "CENTRALMCP_ROUTER_CURSOR_SECRET" | b64dec }}
{{- else }}
{{- randAlphaNum 48 }}
{{- end }}
{{- end }}
{{- end }}

{{/*
terminationGracePeriodSeconds: above the preStop sleep plus the router's drain deadline, so the
kubelet never SIGKILLs a pod that is still finishing in-flight calls.
*/}}
{{- define "centralmcp-router.terminationGracePeriodSeconds" -}}
{{- $drainSeconds := divf .Values.router.drainTimeoutMs 1000 | ceil | int }}
{{- $floor := add .Values.shutdown.preStopSleepSeconds $drainSeconds }}
{{- $explicit := .Values.shutdown.terminationGracePeriodSeconds }}
{{- if kindIs "invalid" $explicit }}
{{- add $floor .Values.shutdown.extraGraceSeconds }}
{{- else if le (int $explicit) (int $floor) }}
{{- fail (printf "shutdown.terminationGracePeriodSeconds (%d) must be above shutdown.preStopSleepSeconds + router.drainTimeoutMs in seconds (%d)" (int $explicit) (int $floor)) }}
{{- else }}
{{- int $explicit }}
{{- end }}
{{- end }}

{{/*
The embeddings server beside the router (embeddingsServer): its own name and labels, so neither
the router's Service nor its Deployment selects its pods.
*/}}
{{- define "centralmcp-router.embeddingsName" -}}
{{- printf "%s-embeddings" (include "centralmcp-router.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "centralmcp-router.embeddingsSelectorLabels" -}}
app.kubernetes.io/name: {{ include "centralmcp-router.name" . }}-embeddings
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: embeddings
{{- end }}

{{- define "centralmcp-router.embeddingsLabels" -}}
helm.sh/chart: {{ include "centralmcp-router.chart" . }}
{{ include "centralmcp-router.embeddingsSelectorLabels" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: centralmcp
{{- end }}

{{/*
discovery.embeddings for the embeddings server beside the router: its Service's URL, the model,
and the optional headers and limits.
*/}}
{{- define "centralmcp-router.embeddingsConfig" -}}
{{- $server := .Values.embeddingsServer }}
{{- $embeddings := dict "url" (printf "http://%s:%d%s" (include "centralmcp-router.embeddingsName" .) ($server.port | int) $server.path) "model" $server.model }}
{{- with $server.headers }}{{ $_ := set $embeddings "headers" . }}{{ end }}
{{- range $key := list "timeoutMs" "batchTimeoutMs" "batchSize" }}
{{- $value := get $server $key }}
{{- if not (kindIs "invalid" $value) }}{{ $_ := set $embeddings $key ($value | int) }}{{ end }}
{{- end }}
{{- toYaml $embeddings }}
{{- end }}
