extension QueryStore {
  /// Every running or recent run of the mutations that `filter` reaches, across their keys: TanStack Query's
  /// `useMutationState`, read once.
  ///
  /// ```swift
  /// let store = SharedRegistry.current.queries
  /// let saving = store.mutations(matching: .prefix(["posts"]).status(.pending))
  /// for run in saving {
  ///   print(run.key, run.arguments(as: String.self) ?? "-", run.startedAt)
  /// }
  /// ```
  ///
  /// It lists the runs that the mutation states of this store's registry keep in their
  /// ``MutationState/history``: the states held under a ``MutationKey`` (`.mutation(["posts", 42, "rename"])`)
  /// that something holds or runs now. A state is freed after its last holder and running mutation, and its runs
  /// go with it; each keeps at most its ``MutationState/historyLimit`` recent runs, and every run under way. A
  /// mutation state held under another kind of key (`.inMemory("rename")`) has no mutation key and is not listed.
  ///
  /// The runs come oldest first (by ``MutationSnapshot/startedAt``, then key and run number). The states are listed
  /// under the registry's lock and each read under its own; the filter's predicate runs after every lock.
  ///
  /// - Parameter filter: Which mutations and runs; every run of every keyed mutation by default.
  /// - Returns: The runs, oldest first.
  public func mutations(matching filter: MutationFilter = .all) -> [MutationSnapshot] {
    guard let registry else { return [] }
    let entries = registry.state.withLock { $0.liveEntries(of: MutationKeyID.self) }
    var runs: [MutationSnapshot] = []
    for entry in entries {
      guard let id = entry.id as? MutationKeyID, filter.reaches(id.key),
        let value = (entry.object as? any InspectableObject)?.inspectedParts().value,
        let state = value as? any MutationRunsReadable
      else { continue }
      runs += state.snapshots(key: id.key)
    }
    return
      runs
      .filter(filter.accepts)
      .sorted { first, second in
        if first.startedAt != second.startedAt { return first.startedAt < second.startedAt }
        if first.key != second.key { return first.key.description < second.key.description }
        return first.runID < second.runID
      }
  }

  /// The runs of the mutations that `filter` reaches, kept up to date: TanStack Query's `useMutationState`.
  ///
  /// ```swift
  /// let saving = SharedRegistry.current.queries.mutationStates(matching: .prefix(["posts"]).status(.pending))
  /// let token = saving.observe { runs in
  ///   print("saving", runs.compactMap { $0.arguments(as: String.self) })  // the titles being saved
  /// }
  /// ```
  ///
  /// Its value is what ``mutations(matching:)`` returns, listed again whenever a run of a mutation whose key the
  /// filter's key reaches starts, succeeds, fails or is cancelled (a run started also pushes the oldest out of a
  /// full ``MutationState/history``), and when the mutation state of such a key is freed. A listing with the same
  /// runs in the same states (by key, run number, status and times) is not written, so holders hear of no change
  /// that is none. `.status(.pending)` and `count` make a live `isMutating(filters)`.
  ///
  /// The listing runs on the thread of the event, outside every lock, and so does the filter's predicate; while
  /// it runs, another event only asks for one more listing, made by the same thread once this one is written. So
  /// the reader's changes come in order, and the last one always lists what followed the last run that started or
  /// ended. A mutation state written directly (`$rename.withLock { $0 = MutationState() }`) is listed again at
  /// the next of these events.
  ///
  /// Each call makes its own reader (a filter's predicate cannot be compared); it is freed after its last holder,
  /// and costs the mutation runs nothing once no reader is left. While there is none, a run pays one atomic load.
  ///
  /// - Parameter filter: Which mutations and runs; every run of every keyed mutation by default.
  /// - Returns: A reader of the runs, oldest first.
  public func mutationStates(matching filter: MutationFilter = .all) -> SharedReader<[MutationSnapshot]> {
    let box = services.mutationStates.reader(of: filter) { [weak self] in
      self?.mutations(matching: filter) ?? []
    }
    return SharedReader(Shared(reference: .box(box)))
  }

  /// How many runs of the mutations that `filter` reaches are under way: TanStack Query's `isMutating(filters)`.
  ///
  /// ```swift
  /// if SharedRegistry.current.queries.runningMutationCount(.prefix(["posts"])) > 0 { showSavingBadge() }
  /// ```
  ///
  /// It counts the runs ``mutations(matching:)`` lists as ``OperationStatus/pending`` (a status the filter names
  /// is replaced). To follow the count as it changes, observe ``activity(matching:)`` (a key prefix), whose
  /// ``QueryActivity/runningMutations`` counts the same runs.
  ///
  /// - Parameter filter: Which mutations; every keyed one by default.
  /// - Returns: How many of their runs are under way.
  public func runningMutationCount(_ filter: MutationFilter = .all) -> Int {
    mutations(matching: filter.status(.pending)).count
  }
}
