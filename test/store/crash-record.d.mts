/** The text of crash-test record `id` at `version`. */
export function crashRecordText(id: string, version: number): string;
