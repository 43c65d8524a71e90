{{/* Names and labels shared by every template. */}}

{{/* The release's full name: the release name, or release-chart when the release name does not contain "rwx". */}}
{{- define "rwx.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels that select one component's pods: name, instance, component. Call with (dict "root" $ "component" "bot"). */}}
{{- define "rwx.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Every object's labels: the selector labels plus version and manager. */}}
{{- define "rwx.labels" -}}
{{ include "rwx.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* An image reference: repository@digest when a digest is given (it wins), else repository:tag. */}}
{{- define "rwx.image" -}}
{{- if .digest -}}
{{- printf "%s@%s" .repository .digest -}}
{{- else -}}
{{- printf "%s:%s" .repository (toString .tag) -}}
{{- end -}}
{{- end -}}

{{/* The bot's image. */}}
{{- define "rwx.botImage" -}}
{{- include "rwx.image" (dict "repository" .Values.image.repository "tag" (.Values.image.tag | default .Chart.AppVersion) "digest" .Values.image.digest) -}}
{{- end -}}

{{/* The agent's image: its own when a repository is given, else the bot's. */}}
{{- define "rwx.agentImage" -}}
{{- if .Values.agent.image.repository -}}
{{- include "rwx.image" (dict "repository" .Values.agent.image.repository "tag" (.Values.agent.image.tag | default .Chart.AppVersion) "digest" .Values.agent.image.digest) -}}
{{- else -}}
{{- include "rwx.botImage" . -}}
{{- end -}}
{{- end -}}

{{- define "rwx.serviceAccountName" -}}
{{- .Values.serviceAccount.name | default (include "rwx.fullname" .) -}}
{{- end -}}

{{- define "rwx.redisName" -}}
{{- printf "%s-redis" (include "rwx.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The Secret holding the bundled Redis's password, and its key. */}}
{{- define "rwx.redisSecret" -}}
{{- .Values.redis.auth.existingSecret | default (include "rwx.redisName" .) -}}
{{- end -}}
{{- define "rwx.redisSecretKey" -}}
{{- if .Values.redis.auth.existingSecret -}}{{ .Values.redis.auth.existingSecretKey }}{{- else -}}REDIS_PASSWORD{{- end -}}
{{- end -}}

{{/* The PromQL label matchers of this release's series. */}}
{{- define "rwx.alertSelector" -}}
{{- .Values.metrics.prometheusRule.selector | default (printf "job=%q,namespace=%q" (include "rwx.fullname" .) .Release.Namespace) -}}
{{- end -}}

{{/* The two values every install must give, checked together so `helm lint` and `helm install` with the defaults
say it in one message. */}}
{{- define "rwx.requiredValues" -}}
{{- $missing := list -}}
{{- if not .Values.image.repository }}{{ $missing = append $missing "image.repository (the image you built and pushed, or a release's)" }}{{ end -}}
{{- if not .Values.slack.channel }}{{ $missing = append $missing "slack.channel (the channel ID the bot was invited to, e.g. C0123ABCD)" }}{{ end -}}
{{- if $missing }}{{ fail (printf "set %s; e.g. helm install rwx charts/rwx --set image.repository=registry.example.com/rwx --set slack.channel=C0123ABCD (docs/install.md)" (join " and " $missing)) }}{{ end -}}
{{- end -}}
