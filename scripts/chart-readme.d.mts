/** The rows (key, default as JSON, description) of a values.yaml text, depth first in file order. */
export function valuesRows(text: string): [string, string, string][];
/** The Markdown values table, between its markers. */
export function valuesTable(text: string): string;
/** The README text with its table replaced by the one of `values`. */
export function withTable(readme: string, values: string): string;
