extension QueryStore {
  /// The online status this store follows, for both of its jobs: while it says the device is offline, the fetches
  /// of the store's queries and the runs of its registry's mutations wait as their ``NetworkMode`` says; each time it
  /// says the device came back online, the paused work goes on and the held queries refetch as their
  /// ``QueryOptions/refetchOnReconnect`` says (if stale, by default). `nil` (the default): the device counts as
  /// online, nothing waits and nothing refetches on a reconnect.
  ///
  /// ```swift
  /// let network = ManualOnlineStatus(isOnline: false)
  /// SharedRegistry.current.queries.onlineStatus = network
  /// // Fetches and mutations wait now, paused; they go on when the device is online, and stale held queries refetch:
  /// network.setOnline(true)
  /// ```
  ///
  /// Give it the source the app already has: `NetworkPathOnlineStatus()` on Apple platforms, a
  /// ``ManualOnlineStatus`` that the program (or a test) drives, or a type of your own. One assignment wires both
  /// jobs, as TanStack Query's `onlineManager` drives both pausing and `refetchOnReconnect`. A query that must not
  /// refetch on a reconnect says ``RefetchCondition/never`` in its options (or the store's
  /// ``defaultOptions``); work that must not wait offline says ``NetworkMode/always`` (or set ``networkMode``).
  ///
  /// Work asks the status as it starts: a query's fetch before its first attempt and before each retry, a
  /// mutation's run the same way. Work that must wait shows ``OperationTracking/isPaused``, and when the status says
  /// online again, the paused work goes on in the order it paused; then the held queries refetch, a query whose fetch
  /// was paused joining that fetch. Only a change from offline to online is a reconnect: the status a source starts
  /// with is not, unless the store counted the device offline before it (setting another source, or `nil`, while
  /// offline is a reconnect if it says online). A change reported by the library's own sources reaches the store at
  /// once, in the thread that made it (the refetches start before `setOnline(true)` returns); a source of your own
  /// is followed through its `onlineStatuses()`.
  ///
  /// Fetches and runs that started before the store had a source ignore the network until they end.
  public var onlineStatus: (any OnlineStatusSource)? {
    get { services.network.source }
    set {
      // Weak: the store keeps its gate, which keeps this.
      services.network.follow(newValue) { [weak self] in self?.trigger(.reconnect, matching: []) }
    }
  }

  /// The network mode of every query fetch and mutation run whose options name none; ``NetworkMode/online`` by
  /// default.
  ///
  /// ```swift
  /// SharedRegistry.current.queries.networkMode = .offlineFirst
  /// ```
  ///
  /// A query names its own with ``QueryOptions/networkMode``, a mutation with ``OperationOptions/networkMode``. It
  /// matters only while the store has an ``onlineStatus``. A change applies to fetches and runs that start after it.
  public var networkMode: NetworkMode {
    get { services.network.defaultMode }
    set { services.network.defaultMode = newValue }
  }

  /// Whether the store counts the device as online, as its ``onlineStatus`` last said; `true` with no source.
  ///
  /// ```swift
  /// if !SharedRegistry.current.queries.isOnline { showOfflineBanner() }
  /// ```
  public var isOnline: Bool {
    services.network.isOnline
  }
}
