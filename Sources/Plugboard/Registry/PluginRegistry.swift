import CFaultReporter
import CPlugboard
import Synchronization

/// The registered plugins of one host: ids unique, kept in dispatch order, and
/// split per concern so each event walks only the plugins that take part in it.
///
/// The per-concern rosters are rebuilt once after registrations change, not per
/// event; an event reads one stored roster.
final class PluginRegistry {
    /// One plugin with the facts the host keeps about it.
    struct Entry {
        let implementation: PluginImplementation
        let descriptor: PluginDescriptor
        /// The concerns it takes part in, in declaration order: a list, shared with the plugin's
        /// definition (a set made for each plugin cost more than searching nine at most).
        let concerns: [PluginConcern]
        let source: PluginSource
        /// Who runs when this plugin is called, for fault and timeout messages.
        let label: UnsafePointer<pbf_label_t>
        /// The functions it declares that the host accepted.
        let functions: [FunctionDeclaration]
        /// The function declarations the host refused, with their reasons.
        let refusedFunctions: [FunctionRefusal]
    }

    private(set) var entries: [Entry] = []
    /// Counts the changes to the registered plugins, so a resolved ``PluginFunctionHandle``
    /// knows when to resolve again; read on every function call, so not checked for exclusive
    /// access at run time (a registry is used from its host's one thread).
    @exclusivity(unchecked) private(set) var generation = 0
    /// Told the plugins after every change but an addition (the host's ``FunctionInvoker`` keeps its targets in step).
    var didChange: ([Entry]) -> Void = { _ in }
    /// Told each plugin as it is added (cheaper than ``didChange`` for the common change: loading
    /// many plugins stays linear).
    var didAdd: (Entry) -> Void = { _ in }
    private var sources: [PluginID: PluginSource] = [:]
    /// Ids withdrawn because two libraries claimed them, with the refusal every later claim gets.
    private var contested: [PluginID: LoadFailure] = [:]
    private var isOrdered = true
    /// The authorization decorator's policy: a plugin denied a concern is left out of its
    /// roster and listed in the roster's ``Roster/denied``. Set before any plugin is added.
    var policy: AccessPolicy?

    private(set) var launch = Roster<pb_launch_t>()
    private(set) var openURL = Roster<pb_open_url_t>()
    private(set) var userActivity = Roster<pb_user_activity_t>()
    private(set) var remoteNotifications = Roster<pb_remote_notifications_t>()
    private(set) var memory = Roster<pb_memory_t>()
    private(set) var protectedData = Roster<pb_protected_data_t>()
    private(set) var appState = Roster<pb_app_state_t>()
    private(set) var termination = Roster<pb_termination_t>()
    private(set) var savedState = Roster<pb_saved_state_t>()
    /// How many operations are calling plugins now (an event, a notification delivery, a saved-state
    /// pass; more than one when a plugin's callback started one of its own). Read and written by every
    /// event, so not checked for exclusive access at run time, as ``generation`` is not.
    @exclusivity(unchecked) private var callsUnderWay = 0
    /// The rosters a change replaced while plugins were being called (events borrow their roster,
    /// ``startCalls()``): kept until the calls end. Not checked for exclusive access at run time, as
    /// ``callsUnderWay`` is not.
    @exclusivity(unchecked) private var retired: [AnyObject] = []
    /// What waits for the calls to end (``afterCalls(_:)``), in order. Not checked for exclusive
    /// access at run time, as ``callsUnderWay`` is not.
    @exclusivity(unchecked) private var deferred: [() -> Void] = []
    /// Whether ``finishCalls()`` runs the work that waited (which may start and end calls of its own).
    private var isFinishing = false

    /// Makes room for `count` more plugins, so that adding them grows no table (a load of many
    /// libraries knows about how many come).
    func reserveCapacity(_ count: Int) {
        sources.reserveCapacity(sources.count + count)
        entries.reserveCapacity(entries.count + count)
    }

    /// Adds a Swift plugin, refusing an id that is already registered and naming both sources.
    func add(_ plugin: any ApplicationPlugin, source: PluginSource) throws(LoadFailure) {
        try add(.swift(plugin), descriptor: plugin.descriptor, concerns: plugin.concerns.sorted(), source: source,
                functions: [], refusedFunctions: [])
    }

    /// Adds a plugin a loaded library registered, refusing an id that is already registered.
    func add(_ definition: CPluginDefinition, from library: LoadedLibrary) throws(LoadFailure) {
        try add(.native(definition, library), descriptor: definition.descriptor, concerns: definition.concerns,
                source: .library(path: library.path), functions: definition.functions.declarations,
                refusedFunctions: definition.functions.refused)
    }

    /// Adds a plugin a worker loaded, as its load report describes it (its concerns each once and in
    /// declaration order, however the worker listed them).
    func add(_ plugin: WorkerPlugin, _ summary: PluginSummary) throws(LoadFailure) {
        try add(.worker(plugin), descriptor: summary.descriptor, concerns: Set(summary.concerns).sorted(), source: summary.source,
                functions: summary.functions, refusedFunctions: summary.refusedFunctions)
    }

    /// Adds the plugins of `staged`, a registry a live change loaded a library into (their ids free here:
    /// the change checked), as they are: the host switches to them. One refused all the same does not
    /// keep the others out; the first refusal is thrown after them.
    func adopt(_ staged: PluginRegistry) throws(LoadFailure) {
        var refused: LoadFailure?
        for entry in staged.entries {
            do throws(LoadFailure) {
                try add(entry.implementation, descriptor: entry.descriptor, concerns: entry.concerns, source: entry.source,
                        functions: entry.functions, refusedFunctions: entry.refusedFunctions)
            } catch {
                refused = refused ?? error
            }
        }
        if let refused { throw refused }
    }

    /// The ids of the plugins of `source`, in dispatch order.
    func ids(from source: PluginSource) -> [PluginID] {
        prepare()
        return entries.filter { $0.source == source }.map(\.descriptor.id)
    }

    /// Removes every plugin of `source` (a library whose worker ended, or that left): they take no further part.
    func removeAll(from source: PluginSource) {
        entries.removeAll { $0.source == source }
        sources = sources.filter { $0.value != source }
        isOrdered = false
        generation += 1
        didChange(entries)
    }

    private func add(_ implementation: PluginImplementation, descriptor: PluginDescriptor,
                     concerns: [PluginConcern], source: PluginSource, functions: [FunctionDeclaration],
                     refusedFunctions: [FunctionRefusal]) throws(LoadFailure) {
        if !contested.isEmpty, let refusal = contested[descriptor.id] { throw refusal }
        if let tooLong = PluginDescriptor.refusal(nameBytes: descriptor.name.utf8.count, versionBytes: descriptor.version.utf8.count) {
            throw LoadFailure(.register, "plugin '\(descriptor.id)': \(tooLong)")
        }
        // Claimed with one look-up, and given back on the rare refusal.
        if let existing = sources.updateValue(source, forKey: descriptor.id) {
            sources[descriptor.id] = existing
            throw LoadFailure(.register, "duplicate plugin id '\(descriptor.id)' from \(source): already registered by \(existing)")
        }
        let entry = Entry(implementation: implementation, descriptor: descriptor, concerns: concerns, source: source,
                          label: descriptor.id.rawValue.withCString { id in source.description.withCString { pbf_label_create(id, $0) } },
                          functions: functions, refusedFunctions: refusedFunctions)
        isOrdered = false
        generation += 1
        // Told first, then appended: the observer borrows the entry, the list takes it without a copy.
        didAdd(entry)
        entries.append(entry)
    }

    /// The registered plugins as reports show them, in dispatch order.
    var summaries: [PluginSummary] {
        prepare()
        return entries.map {
            PluginSummary(descriptor: $0.descriptor, concerns: $0.concerns, source: $0.source,
                          functions: $0.functions, refusedFunctions: $0.refusedFunctions)
        }
    }

    /// The registered plugin `id`, if there is one.
    func entry(_ id: PluginID) -> Entry? {
        entries.first { $0.descriptor.id == id }
    }

    /// Who registered `id`, if anyone.
    func source(of id: PluginID) -> PluginSource? {
        sources[id]
    }

    /// Removes `id`'s plugin for good: every later ``add(_:source:)`` of the id throws `refusal`.
    func withdraw(_ id: PluginID, refusal: LoadFailure) {
        sources[id] = nil
        entries.removeAll { $0.descriptor.id == id }
        contested[id] = refusal
        isOrdered = false
        generation += 1
        didChange(entries)
    }

    /// The refusal of an id ``withdraw(_:refusal:)`` took out, if it was.
    func refusal(forContested id: PluginID) -> LoadFailure? {
        // Asked for every plugin loaded: no id hashed while none is contested.
        contested.isEmpty ? nil : contested[id]
    }

    /// Forgets every plugin and every withdrawn id.
    func removeAll() {
        self.entries = []
        sources = [:]
        contested = [:]
        isOrdered = false
        generation += 1
        prepare()
        didChange(entries)
    }

    /// Sorts the plugins into dispatch order and rebuilds the per-concern rosters,
    /// if a registration changed them since the last call. Inlined, so that an event checks a
    /// Bool; the rebuilding is out of line.
    @inline(__always)
    func prepare() {
        if !isOrdered { order() }
    }

    /// Marks the start of an operation that calls plugins (an event, which borrows its roster, one
    /// of this registry's, without a reference count; a notification delivery; a saved-state pass):
    /// until the matching ``endCalls()``, a roster a change replaces (a plugin's callback changed the
    /// plugins) is kept, and work handed to ``afterCalls(_:)`` waits.
    @inline(__always)
    func startCalls() {
        callsUnderWay += 1
    }

    /// Marks the end of an operation that ``startCalls()`` started: once no other calls plugins, the
    /// rosters replaced meanwhile go and the work that waited runs.
    @inline(__always)
    func endCalls() {
        callsUnderWay -= 1
        if callsUnderWay == 0 && !(retired.isEmpty && deferred.isEmpty) { finishCalls() }
    }

    /// Whether an operation is calling plugins (a callback is running, or more calls are to come).
    var isCalling: Bool { callsUnderWay > 0 }

    /// Runs `work` once no operation is calling plugins: now when none is, else when the last ends.
    func afterCalls(_ work: @escaping () -> Void) {
        guard isCalling else { return work() }
        deferred.append(work)
    }

    /// Lets the rosters retired during the calls go and runs the work that waited, and the work that
    /// work leaves in turn (its own calls end inside it): one piece after another, never one inside
    /// another, so a chain of them (a restarted worker restored, which fails and restarts again) takes
    /// no stack. Out of line, so that the events, which inline ``endCalls()``, stay small.
    @inline(never)
    private func finishCalls() {
        retired = []
        guard !isFinishing else { return }
        isFinishing = true
        defer { isFinishing = false }
        while !deferred.isEmpty {
            let work = deferred
            deferred = []
            work.forEach { $0() }
        }
    }

    /// What ``prepare()`` does when the plugins changed.
    @inline(never)
    private func order() {
        isOrdered = true
        if isCalling {
            retired += [launch, openURL, userActivity, remoteNotifications, memory, protectedData, appState, termination,
                        savedState] as [AnyObject]
        }
        entries.sort { PluginDescriptor.dispatchOrder($0.descriptor, $1.descriptor) }
        launch = roster(.launch, \.launch)
        openURL = roster(.openURL, \.openURL)
        userActivity = roster(.userActivity, \.userActivity)
        remoteNotifications = roster(.remoteNotifications, \.remoteNotifications)
        memory = roster(.memory, \.memory)
        protectedData = roster(.protectedData, \.protectedData)
        appState = roster(.appState, \.appState)
        termination = roster(.termination, \.termination)
        savedState = roster(.savedState, \.savedState)
    }

    /// The roster of `concern`, whose C vtables are `table` of each plugin's.
    private func roster<Table>(_ concern: PluginConcern, _ table: KeyPath<PluginVtables, Table?>) -> Roster<Table> {
        var ids: [PluginID] = []
        var participants: [RosterEntry<Table>] = []
        var conformances: [any ApplicationPlugin] = []
        var denied: [PluginID] = []
        for entry in entries where entry.concerns.contains(concern) {
            if let policy, policy.denies(entry.descriptor.id, .concern(concern)) {
                denied.append(entry.descriptor.id)
                continue
            }
            let participant: Participant<Table>
            switch entry.implementation {
            case .native(let definition, let library):
                guard let table = definition.vtables[keyPath: table] else { continue }
                participant = .native(table, ctx: definition.ctx, library: .passUnretained(library))
            case .swift(let plugin):
                guard concern.isAdopted(by: plugin) else { continue }
                participant = .swift(conformance: conformances.count)
                conformances.append(plugin)
            case .worker(let plugin):
                participant = .worker(plugin)
            }
            participants.append(RosterEntry(participant: participant, label: entry.label))
            ids.append(entry.descriptor.id)
        }
        return Roster(ids: ids, participants: participants, conformances: conformances, denied: denied)
    }
}

/// Who takes part in one concern, in dispatch order: what an event's report keeps of the roster
/// it was dispatched over.
///
/// Interned for the life of the process, one object per distinct list (``interned(ids:denied:)``),
/// so that a report refers to its members without a reference count: reports outlive their host
/// and its rosters, and a retain and release per event are two atomic operations, about a fifth of
/// the host's time for an event of one plugin here (BENCHMARKS.md). A change of the plugins makes
/// new rosters, but a list of ids seen before is found again, not kept twice.
final class RosterMembers: Hashable, Sendable {
    /// The participants' ids, in dispatch order.
    let ids: [PluginID]
    /// The plugins taking part in the concern that the host's policy denies it, in dispatch order: never called.
    let denied: [PluginID]

    private init(ids: [PluginID], denied: [PluginID]) {
        self.ids = ids
        self.denied = denied
    }

    /// Every list made in this process, never freed.
    private static let lists = Mutex<Set<RosterMembers>>([])

    /// The one object for these lists.
    static func interned(ids: [PluginID], denied: [PluginID]) -> RosterMembers {
        lists.withLock { $0.insert(RosterMembers(ids: ids, denied: denied)).memberAfterInsert }
    }

    /// The number of participants.
    var count: Int { ids.count }

    static func == (left: RosterMembers, right: RosterMembers) -> Bool {
        left.ids == right.ids && left.denied == right.denied
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ids)
        hasher.combine(denied)
    }
}

/// One participant of a roster, with who runs in its calls (for fault and timeout messages): side
/// by side, so that the dispatch loop reads both from one place.
struct RosterEntry<Table> {
    /// How the dispatcher reaches the participant.
    let participant: Participant<Table>
    /// The participant's label, which the call record holds during its calls.
    let label: UnsafePointer<pbf_label_t>
}

/// One concern's participants in dispatch order, ready to call.
///
/// Never changed once made (a registry makes new rosters), and so Sendable. An event borrows its
/// roster from the registry without a reference count (``PluginRegistry/startCalls()``); its
/// report keeps the interned ``members``.
final class Roster<Table>: @unchecked Sendable {
    /// The participants' ids and the denied plugins.
    let members: RosterMembers
    /// How the dispatcher reaches each participant and who runs in its calls, same order.
    let participants: [RosterEntry<Table>]
    /// The Swift participants, by ``Participant/swift(conformance:)`` index.
    let conformances: [any ApplicationPlugin]

    init(ids: [PluginID] = [], participants: [RosterEntry<Table>] = [], conformances: [any ApplicationPlugin] = [], denied: [PluginID] = []) {
        members = .interned(ids: ids, denied: denied)
        self.participants = participants
        self.conformances = conformances
    }

    /// The participants' ids, in dispatch order.
    var ids: [PluginID] { members.ids }
    /// The plugins taking part in the concern that the host's policy denies it, in dispatch order: never called.
    var denied: [PluginID] { members.denied }
    /// The number of participants.
    var count: Int { participants.count }
}
