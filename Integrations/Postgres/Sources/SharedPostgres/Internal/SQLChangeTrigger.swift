import Foundation

/// The SQL of the trigger that makes a change made to the values' table in SQL reach every instance: an `UPDATE`
/// that leaves the version alone gets the next version and the writer `sql`, and every row written by `sql` is
/// announced on the channel (without its value: listeners read the row).
struct SQLChangeTrigger: Sendable {
  /// The writer that marks a change made in SQL.
  static let writer = "sql"

  /// The statements, in order: the trigger function, then the trigger, made again if they exist.
  let statements: [String]

  /// The trigger of the table named `tableName` (`table` or `schema.table`), announcing on `channel`.
  init(tableName: String, channel: String) throws(SharedPostgresError) {
    let table = try SQLName.quotedTable(tableName)
    try SQLName.checkChannel(channel)
    let parts = tableName.split(separator: ".", omittingEmptySubsequences: false)
    // The function lives beside the table, in its schema.
    let function = (parts.count == 2 ? [SQLName.quote(parts[0])] : []) + [SQLName.quote("\(parts.last!)_sql_changes")]
    let functionName = function.joined(separator: ".")
    // A string literal inside the function's body: quotes doubled; the body's own delimiter cannot appear in it.
    let channelLiteral = "'" + channel.replacingOccurrences(of: "'", with: "''") + "'"
    let delimiter = Self.delimiter(avoiding: channel)
    statements = [
      """
      CREATE OR REPLACE FUNCTION \(functionName)() RETURNS trigger LANGUAGE plpgsql AS \(delimiter)
      BEGIN
        IF TG_WHEN = 'BEFORE' THEN
          IF NEW.version <= OLD.version THEN
            NEW.version := OLD.version + 1;
            NEW.writer := '\(Self.writer)';
            NEW.updated_at := now();
          END IF;
          RETURN NEW;
        END IF;
        IF NEW.writer = '\(Self.writer)' THEN
          PERFORM pg_notify(\(channelLiteral),
            NEW.version::text || ' \(Self.writer) ' || octet_length(NEW.id)::text || ' ' || NEW.id);
        END IF;
        RETURN NULL;
      END
      \(delimiter)
      """,
      "DROP TRIGGER IF EXISTS shared_sql_changes_before ON \(table)",
      """
      CREATE TRIGGER shared_sql_changes_before BEFORE UPDATE ON \(table)
      FOR EACH ROW EXECUTE FUNCTION \(functionName)()
      """,
      "DROP TRIGGER IF EXISTS shared_sql_changes_after ON \(table)",
      """
      CREATE TRIGGER shared_sql_changes_after AFTER INSERT OR UPDATE ON \(table)
      FOR EACH ROW EXECUTE FUNCTION \(functionName)()
      """,
    ]
  }

  /// A dollar-quote tag that `text` does not hold.
  private static func delimiter(avoiding text: String) -> String {
    var tag = "shared"
    while text.contains("$\(tag)$") { tag += "_" }
    return "$\(tag)$"
  }
}
