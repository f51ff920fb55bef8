/**
 * The values of a closed union, for a label's series created at 0 at boot. Written as a record so
 * that a member added to the union fails to compile where its values are listed until it is listed.
 */
export function labelValues<K extends string>(record: Record<K, true>): K[] {
  const values: K[] = [];
  // `for in` types its key as the record's keys, where Object.keys would say only `string`.
  for (const key in record) values.push(key);
  return values;
}
