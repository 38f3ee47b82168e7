/// The options a store gives what is made without options of its own: queries (store-wide, and per key prefix) and
/// mutation runs (per key prefix). The longest prefix of a key that has defaults wins.
struct QueryStoreDefaults: Sendable {
  /// For every query made without options: `nil`, the library's defaults.
  var queries: QueryOptions?
  /// For the queries made without options under each prefix (never `[]`: that is ``queries``).
  var queriesByPrefix: [QueryKey: QueryOptions] = [:]
  /// For the mutation runs started without options, under each prefix (`[]` included: every run).
  var mutationsByPrefix: [QueryKey: OperationOptions] = [:]

  /// The options of a query named `key` made without its own, if the store has some (otherwise the library's).
  func queryOptions(for key: QueryKey) -> QueryOptions? {
    Self.longestPrefix(of: key, in: queriesByPrefix) ?? queries
  }

  /// The options of a run of the mutation named `key` (`nil`: a state held under another kind of key) started
  /// without its own, if the store has some.
  func mutationOptions(for key: QueryKey?) -> OperationOptions? {
    guard let key else { return mutationsByPrefix[[]] }
    return Self.longestPrefix(of: key, in: mutationsByPrefix)
  }

  /// Sets the defaults of the queries under `prefix` (`[]`: ``queries``; `nil` removes them); returns the options
  /// replaced, to release after the lock (they hold the program's values: meta, retry closures, modifiers).
  mutating func setQueryOptions(_ options: QueryOptions?, under prefix: QueryKey) -> Any? {
    guard prefix.parts.isEmpty else { return Self.replace(prefix, with: options, in: &queriesByPrefix) }
    let replaced = queries
    queries = options
    return replaced
  }

  /// Sets the defaults of the mutation runs under `prefix` (`nil` removes them); returns the options replaced, to
  /// release after the lock.
  mutating func setMutationOptions(_ options: OperationOptions?, under prefix: QueryKey) -> Any? {
    Self.replace(prefix, with: options, in: &mutationsByPrefix)
  }

  /// Sets the value of `key` in `table` (`nil` removes it); returns the entry replaced, its stored key included.
  private static func replace<Value>(
    _ key: QueryKey,
    with value: Value?,
    in table: inout [QueryKey: Value]
  ) -> (key: QueryKey, value: Value)? {
    // An existing entry keeps its stored key: only its value is replaced.
    if let value { return table.updateValue(value, forKey: key).map { (key, $0) } }
    guard let index = table.index(forKey: key) else { return nil }
    return table.remove(at: index)
  }

  /// The value under the longest prefix of `key` that `table` has.
  private static func longestPrefix<Value>(of key: QueryKey, in table: [QueryKey: Value]) -> Value? {
    guard !table.isEmpty else { return nil }
    var best: (length: Int, value: Value)?
    for (prefix, value) in table where key.hasPrefix(prefix) {
      if prefix.parts.count > best?.length ?? -1 { best = (prefix.parts.count, value) }
    }
    return best?.value
  }
}
