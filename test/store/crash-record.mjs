/** The text of crash-test record `id` at `version`: varied lengths, some non-ASCII. */
export function crashRecordText(id, version) {
  return `${id}:${version}:${"é·x".repeat((version * 37) % 200)}`;
}
