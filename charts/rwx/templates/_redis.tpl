{{/* The bot's Redis settings, one variable each (docs/configuration.md): the bundled Valkey, or your Redis as one
server (REDIS_URL), Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_NAME) or Cluster (REDIS_CLUSTER_NODES), with an ACL
user, passwords from your Secret (secretKeyRef, never a value), TLS and a CA file. */}}
{{- define "rwx.redisEnv" -}}
{{- $x := .Values.redis.external -}}
{{- $secret := $x.existingSecret | default .Values.slack.existingSecret -}}
{{- if .Values.redis.bundled }}
- name: REDIS_URL
  value: redis://{{ include "rwx.redisName" . }}:6379
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "rwx.redisSecret" . }}
      key: {{ include "rwx.redisSecretKey" . }}
{{- else }}
{{- if $x.sentinels }}
- name: REDIS_SENTINELS
  value: {{ $x.sentinels | quote }}
- name: REDIS_SENTINEL_NAME
  value: {{ required "redis.external.sentinelName: the Sentinels' master name is required with redis.external.sentinels" $x.sentinelName | quote }}
{{- else if $x.clusterNodes }}
- name: REDIS_CLUSTER_NODES
  value: {{ $x.clusterNodes | quote }}
{{- else if $x.url }}
- name: REDIS_URL
  value: {{ $x.url | quote }}
{{- else }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $x.urlKey }}
{{- end }}
{{- with $x.username }}
- name: REDIS_USERNAME
  value: {{ . | quote }}
{{- end }}
{{- with $x.passwordKey }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ . }}
{{- end }}
{{- with $x.sentinelPasswordKey }}
- name: REDIS_SENTINEL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ . }}
{{- end }}
{{- if $x.tls }}
- name: REDIS_TLS
  value: "true"
{{- end }}
{{- if $x.caSecret.name }}
- name: REDIS_TLS_CA_FILE
  value: /etc/rwx/redis-ca/{{ $x.caSecret.key }}
{{- end }}
{{- end }}
{{- end -}}
