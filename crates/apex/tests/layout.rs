// SPDX-License-Identifier: MIT OR Apache-2.0
//! Checks `include/ARINC653.h` against its Rust mirror `partita_apex::types`.
//!
//! * `layout_matches_header`: a C probe, generated from the table in
//!   [`rust_spec`], is compiled against the header and run.  It prints one
//!   line per item:
//!   - `STRUCT size align` for every struct,
//!   - `STRUCT.FIELD offset size` for every field,
//!   - `TYPEDEF size align signed` for every scalar typedef (`signed` is
//!     `1`/`0` for integers and enums, `-` for pointers and arrays),
//!   - `CONSTANT value` for every enum constant and `#define`.
//!
//!   The Rust side computes the same lines with `size_of`, `align_of`,
//!   `offset_of!` and the constant values; a line missing on either side or
//!   differing fails the test.
//! * `inventories_match`: the typedefs, struct fields (in order), enum
//!   constants and `#define`s found in the header, the items of the table and
//!   the items declared in `src/types.rs` must be the same sets, so nothing
//!   escapes the probe.
//! * `header_compiles_standalone`: the header alone compiles as strict C99
//!   and C++11; C stubs of the declared services, compiled as C, link with
//!   and are called from C++ code (proves `extern "C"` and the prototypes).
//!
//! * `abi_constants_match_header`: the header's enumerations (same constants, same order) and
//!   `#define`s are those of `partita_abi`'s tables, and a C file of `_Static_assert`s
//!   generated from those tables compiles against the header (same values).
//! * `apex_services_number_every_export`: every export has exactly one
//!   `partita_abi::trace::ApexService` (the numbering of `APEX_ENTER` / `APEX_EXIT`), every
//!   service one export, and each export runs its body in `trace::apex_call` with its own
//!   service.
//! * `prototypes_match_rust_exports`: every prototype of the header has a
//!   `#[no_mangle] extern "C"` export under `src/ffi/` and vice versa, and a C file assigning
//!   each export to a function pointer of the type its Rust signature gives (spelt in C)
//!   compiles with `-Werror=incompatible-pointer-types`.
//!
//! Needs `cc` and `c++` on `PATH` (or `CC` / `CXX` set).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::mem::{align_of, offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use partita_apex::types;

// ---------------------------------------------------------------------------
// Rust side: the table of everything the header must contain
// ---------------------------------------------------------------------------

struct FieldSpec {
    c_name: String,
    offset: usize,
    size: usize,
}

struct StructSpec {
    c_name: String,
    size: usize,
    align: usize,
    fields: Vec<FieldSpec>,
}

struct ScalarSpec {
    c_name: String,
    size: usize,
    align: usize,
    /// `Some(is_signed)` for integer and enum types, `None` otherwise.
    signed: Option<bool>,
}

struct ConstSpec {
    c_name: String,
    value: i128,
}

struct EnumSpec {
    c_name: String,
    values: Vec<ConstSpec>,
}

#[derive(Default)]
struct Spec {
    structs: Vec<StructSpec>,
    scalars: Vec<ScalarSpec>,
    enums: Vec<EnumSpec>,
    defines: Vec<ConstSpec>,
}

/// `ProcessAttributeType` -> `PROCESS_ATTRIBUTE_TYPE`.
fn upper_snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, ch) in camel.chars().enumerate() {
        if i > 0 && ch.is_ascii_uppercase() {
            out.push('_');
        }
        out.push(ch.to_ascii_uppercase());
    }
    out
}

/// Size of the field selected by `project`.
fn field_size<T, F>(_project: impl Fn(&T) -> &F) -> usize {
    size_of::<F>()
}

macro_rules! structs {
    ($spec:ident; $($t:ident { $($f:ident),* $(,)? })*) => {$(
        // Exhaustive pattern: does not compile if the Rust struct has a
        // field that is not listed here.
        let _ = |v: types::$t| {
            let types::$t { $($f: _),* } = v;
        };
        $spec.structs.push(StructSpec {
            c_name: upper_snake(stringify!($t)),
            size: size_of::<types::$t>(),
            align: align_of::<types::$t>(),
            fields: vec![$(FieldSpec {
                c_name: stringify!($f).to_ascii_uppercase(),
                offset: offset_of!(types::$t, $f),
                size: field_size(|s: &types::$t| &s.$f),
            }),*],
        });
    )*};
}

macro_rules! int_scalars {
    ($spec:ident; $($t:ident),* $(,)?) => {$(
        $spec.scalars.push(ScalarSpec {
            c_name: upper_snake(stringify!($t)),
            size: size_of::<types::$t>(),
            align: align_of::<types::$t>(),
            signed: Some(<types::$t>::checked_sub(0, 1).is_some()),
        });
    )*};
}

macro_rules! other_scalars {
    ($spec:ident; $($t:ident),* $(,)?) => {$(
        $spec.scalars.push(ScalarSpec {
            c_name: upper_snake(stringify!($t)),
            size: size_of::<types::$t>(),
            align: align_of::<types::$t>(),
            signed: None,
        });
    )*};
}

macro_rules! enums {
    ($spec:ident; $($t:ident { $($c:ident),* $(,)? })*) => {$(
        int_scalars!($spec; $t);
        $spec.enums.push(EnumSpec {
            c_name: upper_snake(stringify!($t)),
            values: vec![$({
                let value: types::$t = types::$c;
                ConstSpec { c_name: stringify!($c).to_string(), value: i128::from(value) }
            }),*],
        });
    )*};
}

macro_rules! defines {
    ($spec:ident; $($c:ident),* $(,)?) => {$(
        $spec.defines.push(ConstSpec {
            c_name: stringify!($c).to_string(),
            value: types::$c as i128,
        });
    )*};
}

fn rust_spec() -> Spec {
    let mut spec = Spec::default();

    structs! { spec;
        PartitionStatusType {
            period, duration, identifier, lock_level, operating_mode, start_condition,
            num_assigned_cores,
        }
        ProcessAttributeType {
            period, time_capacity, entry_point, stack_size, base_priority, deadline, name,
        }
        ProcessStatusType { deadline_time, current_priority, process_state, attributes }
        SamplingPortStatusType { refresh_period, max_message_size, port_direction, last_msg_validity }
        SamplingPortCurrentStatusType {
            refresh_period, time_stamp, max_message_size, port_direction, message_age, updated,
        }
        QueuingPortStatusType {
            nb_message, max_nb_message, max_message_size, port_direction, waiting_processes,
        }
        BufferStatusType { nb_message, max_nb_message, max_message_size, waiting_processes }
        BlackboardStatusType { empty_indicator, max_message_size, waiting_processes }
        SemaphoreStatusType { current_value, maximum_value, waiting_processes }
        EventStatusType { event_state, waiting_processes }
        MutexStatusType { mutex_owner, mutex_state, mutex_priority, lock_count, waiting_processes }
        ErrorStatusType { error_code, length, failed_process_id, failed_address, message }
        // Partita extension: system-partition services.
        APartitionStatusType {
            period, duration, identifier, lock_level, operating_mode, start_condition,
            num_assigned_cores, restarts, hm_events, windows, has_process, system_partition,
        }
        HmLogStatusType { total, first_index, kept, evicted, capacity }
        HmLogEntryType {
            index, time, partition_id, process_id, system_state, error_code, error_level, action,
            error_identifier, length, message,
        }
    }

    int_scalars! { spec;
        ApexByte, ApexInteger, ApexUnsigned, ApexLongInteger,
        MessageSizeType, MessageRangeType, WaitingRangeType, SystemTimeType, ProcessorCoreIdType,
        PartitionIdType, LockLevelType, NumCoresType,
        ProcessIdType, ProcessIndexType, StackSizeType, PriorityType,
        SamplingPortIdType, QueuingPortIdType, BufferIdType, BlackboardIdType,
        SemaphoreIdType, SemaphoreValueType, EventIdType, MutexIdType, LockCountType,
        ErrorMessageSizeType,
    }

    other_scalars! { spec;
        NameType, SystemAddressType, MessageAddrType, ProcessNameType,
        SamplingPortNameType, QueuingPortNameType, BufferNameType, BlackboardNameType,
        SemaphoreNameType, EventNameType, MutexNameType, ErrorMessageType,
    }

    enums! { spec;
        ReturnCodeType {
            NO_ERROR, NO_ACTION, NOT_AVAILABLE, INVALID_PARAM, INVALID_CONFIG, INVALID_MODE,
            TIMED_OUT,
        }
        PortDirectionType { SOURCE, DESTINATION }
        QueuingDisciplineType { FIFO, PRIORITY }
        OperatingModeType { IDLE, COLD_START, WARM_START, NORMAL }
        StartConditionType { NORMAL_START, PARTITION_RESTART, HM_MODULE_RESTART, HM_PARTITION_RESTART }
        ProcessStateType { DORMANT, READY, RUNNING, WAITING }
        DeadlineType { SOFT, HARD }
        ValidityType { INVALID, VALID }
        UpdatedType { EMPTY_PORT, CONSUMED_MESSAGE, NEW_MESSAGE }
        AgeType { STALE, FRESH }
        EmptyIndicatorType { EMPTY, OCCUPIED }
        EventStateType { DOWN, UP }
        MutexStateType { AVAILABLE, OWNED }
        ErrorCodeType {
            DEADLINE_MISSED, APPLICATION_ERROR, NUMERIC_ERROR, ILLEGAL_REQUEST, STACK_OVERFLOW,
            MEMORY_VIOLATION, HARDWARE_FAULT, POWER_FAIL,
        }
        ErrorHandlerConcurrencyControlType { PROCESSES_PAUSE, PROCESSES_SCHEDULED }
        // Partita extension: system-partition services.
        HmLevelType { HM_LEVEL_MODULE, HM_LEVEL_PARTITION, HM_LEVEL_PROCESS }
        HmActionType {
            HM_ACTION_ERROR_HANDLER, HM_ACTION_IGNORE, HM_ACTION_IDLE, HM_ACTION_COLD_START,
            HM_ACTION_WARM_START, HM_ACTION_SHUTDOWN, HM_ACTION_RESET,
        }
    }

    // --- Multiple module schedules (ARINC 653 Part 2) ---
    structs! { spec;
        ScheduleStatusType { time_of_last_schedule_switch, current_schedule, next_schedule }
    }
    int_scalars! { spec; ScheduleIdType }
    other_scalars! { spec; ScheduleNameType }

    // --- Memory blocks (ARINC 653 Part 2) ---
    structs! { spec;
        MemoryBlockStatusType { address, mode, size }
    }
    int_scalars! { spec; MemoryBlockSizeType }
    other_scalars! { spec; MemoryBlockNameType, MemoryBlockAddressType }
    enums! { spec;
        MemoryBlockModeType { MB_READ, MB_READ_WRITE }
    }

    defines! { spec;
        SYSTEM_LIMIT_NUMBER_OF_PARTITIONS, SYSTEM_LIMIT_NUMBER_OF_MESSAGES,
        SYSTEM_LIMIT_MESSAGE_SIZE, SYSTEM_LIMIT_NUMBER_OF_PROCESSES,
        SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS, SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS,
        SYSTEM_LIMIT_NUMBER_OF_BUFFERS, SYSTEM_LIMIT_NUMBER_OF_BLACKBOARDS,
        SYSTEM_LIMIT_NUMBER_OF_SEMAPHORES, SYSTEM_LIMIT_NUMBER_OF_EVENTS,
        SYSTEM_LIMIT_NUMBER_OF_MUTEXES,
        MAX_NAME_LENGTH, INFINITE_TIME_VALUE, CORE_AFFINITY_NO_PREFERENCE,
        MAX_NUMBER_OF_PROCESSES, MIN_PRIORITY_VALUE, MAX_PRIORITY_VALUE, MAX_LOCK_LEVEL,
        NULL_PROCESS_ID,
        MAX_NUMBER_OF_SAMPLING_PORTS, MAX_NUMBER_OF_QUEUING_PORTS, MAX_NUMBER_OF_BUFFERS,
        MAX_NUMBER_OF_BLACKBOARDS, MAX_NUMBER_OF_SEMAPHORES, MAX_SEMAPHORE_VALUE,
        MAX_NUMBER_OF_EVENTS, MAX_NUMBER_OF_MUTEXES, NULL_MUTEX_ID, NO_MUTEX_OWNED,
        PREEMPTION_LOCK_MUTEX, MAX_ERROR_MESSAGE_SIZE,
        // Partita extension: system-partition services.
        HM_STATE_MODULE_INIT, HM_STATE_PARTITION_INIT, HM_STATE_PROCESS_EXECUTION,
        HM_STATE_ERROR_HANDLER, HM_STATE_OS, HM_LOG_NO_PROCESS, HM_LOG_MESSAGE_SIZE,
    }

    spec
}

/// The lines the probe must print, keyed by their first word.
fn expected_lines(spec: &Spec) -> BTreeMap<String, String> {
    let mut lines = BTreeMap::new();
    let mut add = |key: String, value: String| {
        assert!(
            lines.insert(key.clone(), value).is_none(),
            "table lists `{key}` twice"
        );
    };
    for s in &spec.structs {
        add(s.c_name.clone(), format!("{} {}", s.size, s.align));
        for f in &s.fields {
            add(
                format!("{}.{}", s.c_name, f.c_name),
                format!("{} {}", f.offset, f.size),
            );
        }
    }
    for t in &spec.scalars {
        let signed = match t.signed {
            Some(true) => "1",
            Some(false) => "0",
            None => "-",
        };
        add(
            t.c_name.clone(),
            format!("{} {} {}", t.size, t.align, signed),
        );
    }
    for c in spec
        .enums
        .iter()
        .flat_map(|e| &e.values)
        .chain(&spec.defines)
    {
        add(c.c_name.clone(), c.value.to_string());
    }
    lines
}

/// C source of the probe printing the lines of [`expected_lines`].
fn probe_source(spec: &Spec) -> String {
    let mut src = String::from(
        "#include <stddef.h>\n\
         #include <stdio.h>\n\
         #include \"ARINC653.h\"\n\
         \n\
         #define IS_SIGNED(T) ((T)~(T)0 < (T)1)\n\
         \n\
         int main(void)\n\
         {\n",
    );
    for s in &spec.structs {
        let n = &s.c_name;
        writeln!(
            src,
            "    printf(\"%s %zu %zu\\n\", \"{n}\", sizeof({n}), _Alignof({n}));"
        )
        .unwrap();
        for f in &s.fields {
            let fname = &f.c_name;
            writeln!(
                src,
                "    printf(\"%s %zu %zu\\n\", \"{n}.{fname}\", offsetof({n}, {fname}), \
                 sizeof((({n} *)0)->{fname}));"
            )
            .unwrap();
        }
    }
    for t in &spec.scalars {
        let n = &t.c_name;
        if t.signed.is_some() {
            writeln!(
                src,
                "    printf(\"%s %zu %zu %d\\n\", \"{n}\", sizeof({n}), _Alignof({n}), \
                 IS_SIGNED({n}) ? 1 : 0);"
            )
            .unwrap();
        } else {
            writeln!(
                src,
                "    printf(\"%s %zu %zu -\\n\", \"{n}\", sizeof({n}), _Alignof({n}));"
            )
            .unwrap();
        }
    }
    for c in spec
        .enums
        .iter()
        .flat_map(|e| &e.values)
        .chain(&spec.defines)
    {
        let n = &c.c_name;
        writeln!(
            src,
            "    printf(\"%s %lld\\n\", \"{n}\", (long long)({n}));"
        )
        .unwrap();
    }
    src.push_str("    return 0;\n}\n");
    src
}

fn parse_probe_output(stdout: &str) -> BTreeMap<String, String> {
    let mut lines = BTreeMap::new();
    for line in stdout.lines() {
        let (key, value) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("malformed probe line {line:?}"));
        assert!(
            lines
                .insert(key.to_string(), value.trim().to_string())
                .is_none(),
            "probe printed `{key}` twice"
        );
    }
    lines
}

// ---------------------------------------------------------------------------
// Compiler plumbing
// ---------------------------------------------------------------------------

fn include_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include");
    dir.canonicalize()
        .unwrap_or_else(|e| panic!("include directory {} not found: {e}", dir.display()))
}

fn header_path() -> PathBuf {
    include_dir().join("ARINC653.h")
}

/// A scratch directory, removed on success and kept (for inspection) when
/// the test fails.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("partita-apex-layout-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        Scratch(dir)
    }

    fn write(&self, file: &str, contents: &str) -> PathBuf {
        let path = self.0.join(file);
        std::fs::write(&path, contents)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("scratch files kept in {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// `$CC` / `$CXX` split into program and arguments, or the default.
fn compiler(var: &str, default: &str) -> Command {
    let line = std::env::var(var)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| default.to_string());
    let mut words = line.split_whitespace();
    let mut cmd = Command::new(words.next().unwrap());
    cmd.args(words);
    cmd
}

fn cc() -> Command {
    compiler("CC", "cc")
}

fn cxx() -> Command {
    compiler("CXX", "c++")
}

/// Runs `cmd`, failing the test with its output unless it succeeds.
fn run(what: &str, cmd: &mut Command) -> Output {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let output = match cmd.output() {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "{what}: `{program}` not found on PATH ({e}). This test needs a C compiler \
             (`cc`) and a C++ compiler (`c++`), e.g. gcc and g++; set CC / CXX to use others."
        ),
        Err(e) => panic!("{what}: cannot run `{program}`: {e}"),
    };
    if !output.status.success() {
        panic!(
            "{what} failed ({}):\n{cmd:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
    }
    output
}

// ---------------------------------------------------------------------------
// Test 1: sizes, alignments, offsets and values
// ---------------------------------------------------------------------------

#[test]
fn layout_matches_header() {
    let spec = rust_spec();
    let expected = expected_lines(&spec);

    let scratch = Scratch::new("probe");
    let source = scratch.write("probe.c", &probe_source(&spec));
    let binary = scratch.path("probe");
    run(
        "compiling the layout probe",
        cc().args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(include_dir())
            .arg(&source)
            .arg("-o")
            .arg(&binary),
    );
    let output = run("running the layout probe", &mut Command::new(&binary));
    let actual = parse_probe_output(&String::from_utf8(output.stdout).expect("UTF-8 output"));

    let mut problems = Vec::new();
    for (key, want) in &expected {
        match actual.get(key) {
            None => problems.push(format!("missing in C probe output: {key} (Rust: {want})")),
            Some(got) if got != want => problems.push(format!(
                "mismatch: {key}: C says `{got}`, Rust says `{want}`"
            )),
            Some(_) => {}
        }
    }
    for (key, got) in &actual {
        if !expected.contains_key(key) {
            problems.push(format!("missing on the Rust side: {key} (C: {got})"));
        }
    }
    assert!(
        problems.is_empty(),
        "ARINC653.h and partita_apex::types disagree ({} problems):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );

    let fields: usize = spec.structs.iter().map(|s| s.fields.len()).sum();
    let constants: usize =
        spec.enums.iter().map(|e| e.values.len()).sum::<usize>() + spec.defines.len();
    eprintln!(
        "checked {} structs ({fields} fields), {} scalar typedefs ({} enums), \
         {constants} constants: {} lines",
        spec.structs.len(),
        spec.scalars.len(),
        spec.enums.len(),
        expected.len()
    );
}

// ---------------------------------------------------------------------------
// Test 2: nothing in the header or in types.rs escapes the table
// ---------------------------------------------------------------------------

#[path = "layout/inventory.rs"]
mod inventory;
use inventory::{compare_sets, scan_header, scan_types_rs};

#[test]
fn inventories_match() {
    let header_text = std::fs::read_to_string(header_path()).expect("read ARINC653.h");
    let header = scan_header(&header_text);
    let spec = rust_spec();
    let (rs_structs, rs_aliases, rs_consts) = scan_types_rs(include_str!("../src/types.rs"));

    // Sanity: the scanner found something at all.
    assert!(
        header.structs.len() >= 10 && header.enums.len() >= 10 && header.defines.len() >= 20,
        "header scan looks wrong: {header:?}"
    );

    let mut problems = Vec::new();
    let h = "ARINC653.h";
    let t = "the layout table";
    let r = "types.rs";

    // Structs and their fields, in order.
    let table_structs: BTreeMap<String, Vec<String>> = spec
        .structs
        .iter()
        .map(|s| {
            let fields = s.fields.iter().map(|f| f.c_name.clone()).collect();
            (s.c_name.clone(), fields)
        })
        .collect();
    compare_sets(
        &mut problems,
        "struct",
        (h, header.structs.keys()),
        (t, table_structs.keys()),
    );
    compare_sets(
        &mut problems,
        "struct",
        (t, table_structs.keys()),
        (r, &rs_structs),
    );
    for (name, fields) in &header.structs {
        if let Some(listed) = table_structs.get(name) {
            if listed != fields {
                problems.push(format!(
                    "struct `{name}`: fields in {h} are {fields:?}, in {t} {listed:?}"
                ));
            }
        }
    }

    // Scalar typedefs (enums included).
    let table_scalars: BTreeSet<String> = spec.scalars.iter().map(|s| s.c_name.clone()).collect();
    compare_sets(
        &mut problems,
        "typedef",
        (h, &header.scalars),
        (t, &table_scalars),
    );
    compare_sets(
        &mut problems,
        "typedef",
        (t, &table_scalars),
        (r, &rs_aliases),
    );

    // Enum constants, per enum and in order.
    let table_enums: BTreeMap<String, Vec<String>> = spec
        .enums
        .iter()
        .map(|e| {
            let values = e.values.iter().map(|c| c.c_name.clone()).collect();
            (e.c_name.clone(), values)
        })
        .collect();
    compare_sets(
        &mut problems,
        "enum",
        (h, header.enums.keys()),
        (t, table_enums.keys()),
    );
    for (name, constants) in &header.enums {
        if let Some(listed) = table_enums.get(name) {
            if listed != constants {
                problems.push(format!(
                    "enum `{name}`: constants in {h} are {constants:?}, in {t} {listed:?}"
                ));
            }
        }
    }

    // #defines, and all constants against types.rs.
    let table_defines: BTreeSet<String> = spec.defines.iter().map(|c| c.c_name.clone()).collect();
    compare_sets(
        &mut problems,
        "#define",
        (h, &header.defines),
        (t, &table_defines),
    );
    let table_consts: BTreeSet<String> = table_enums
        .values()
        .flatten()
        .cloned()
        .chain(table_defines.iter().cloned())
        .collect();
    compare_sets(
        &mut problems,
        "constant",
        (t, &table_consts),
        (r, &rs_consts),
    );

    assert!(
        problems.is_empty(),
        "inventories differ ({} problems):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

// ---------------------------------------------------------------------------
// Test 3: the header stands alone in strict C99 and C++11
// ---------------------------------------------------------------------------

/// C definitions of the declared services: conflicting with a prototype is
/// an error.  They check their inputs and write recognisable outputs.
const SERVICES_C: &str = r#"#include "ARINC653.h"
#include "ARINC653.h" /* twice: include guard */

void GET_PARTITION_STATUS(PARTITION_STATUS_TYPE *PARTITION_STATUS,
                          RETURN_CODE_TYPE *RETURN_CODE)
{
    PARTITION_STATUS->PERIOD = 1000;
    PARTITION_STATUS->DURATION = 500;
    PARTITION_STATUS->IDENTIFIER = 3;
    PARTITION_STATUS->LOCK_LEVEL = 0;
    PARTITION_STATUS->OPERATING_MODE = COLD_START;
    PARTITION_STATUS->START_CONDITION = NORMAL_START;
    PARTITION_STATUS->NUM_ASSIGNED_CORES = 1;
    *RETURN_CODE = NO_ERROR;
}

void SET_PARTITION_MODE(OPERATING_MODE_TYPE OPERATING_MODE,
                        RETURN_CODE_TYPE *RETURN_CODE)
{
    *RETURN_CODE = OPERATING_MODE == NORMAL ? NO_ERROR : INVALID_PARAM;
}

void GET_TIME(SYSTEM_TIME_TYPE *SYSTEM_TIME, RETURN_CODE_TYPE *RETURN_CODE)
{
    *SYSTEM_TIME = 123456789012LL;
    *RETURN_CODE = NO_ERROR;
}

void CREATE_PROCESS(PROCESS_ATTRIBUTE_TYPE *ATTRIBUTES,
                    PROCESS_ID_TYPE *PROCESS_ID, RETURN_CODE_TYPE *RETURN_CODE)
{
    if (ATTRIBUTES->BASE_PRIORITY < MIN_PRIORITY_VALUE ||
        ATTRIBUTES->BASE_PRIORITY > MAX_PRIORITY_VALUE ||
        ATTRIBUTES->PERIOD != INFINITE_TIME_VALUE) {
        *RETURN_CODE = INVALID_PARAM;
        return;
    }
    *PROCESS_ID = 7;
    *RETURN_CODE = NO_ERROR;
}

void START(PROCESS_ID_TYPE PROCESS_ID, RETURN_CODE_TYPE *RETURN_CODE)
{
    *RETURN_CODE = PROCESS_ID == 7 ? NO_ERROR : INVALID_PARAM;
}

void PERIODIC_WAIT(RETURN_CODE_TYPE *RETURN_CODE)
{
    *RETURN_CODE = INVALID_MODE;
}

void GET_MY_ID(PROCESS_ID_TYPE *PROCESS_ID, RETURN_CODE_TYPE *RETURN_CODE)
{
    *PROCESS_ID = 7;
    *RETURN_CODE = NO_ERROR;
}

void REPORT_APPLICATION_MESSAGE(MESSAGE_ADDR_TYPE MESSAGE_ADDR,
                                MESSAGE_SIZE_TYPE LENGTH,
                                RETURN_CODE_TYPE *RETURN_CODE)
{
    *RETURN_CODE = (LENGTH == 5 && MESSAGE_ADDR[0] == 'h') ? NO_ERROR
                                                           : INVALID_PARAM;
}
"#;

/// C++ caller of every declared service; links only if they have C linkage.
const CALLER_CPP: &str = r#"#include "ARINC653.h"
#include "ARINC653.h" /* twice: include guard */
#include <cstdio>
#include <cstring>

static int failures = 0;

static void expect(bool ok, const char *what)
{
    if (!ok) {
        std::printf("FAILED: %s\n", what);
        ++failures;
    }
}

int main()
{
    RETURN_CODE_TYPE rc = TIMED_OUT;

    PARTITION_STATUS_TYPE status;
    GET_PARTITION_STATUS(&status, &rc);
    expect(rc == NO_ERROR && status.PERIOD == 1000 && status.DURATION == 500 &&
               status.IDENTIFIER == 3 && status.OPERATING_MODE == COLD_START &&
               status.NUM_ASSIGNED_CORES == 1,
           "GET_PARTITION_STATUS");

    SET_PARTITION_MODE(NORMAL, &rc);
    expect(rc == NO_ERROR, "SET_PARTITION_MODE");

    SYSTEM_TIME_TYPE now = 0;
    GET_TIME(&now, &rc);
    expect(rc == NO_ERROR && now == 123456789012LL, "GET_TIME");

    PROCESS_ATTRIBUTE_TYPE attributes;
    std::memset(&attributes, 0, sizeof attributes);
    attributes.PERIOD = INFINITE_TIME_VALUE;
    attributes.TIME_CAPACITY = INFINITE_TIME_VALUE;
    attributes.STACK_SIZE = 16384;
    attributes.BASE_PRIORITY = MIN_PRIORITY_VALUE;
    attributes.DEADLINE = SOFT;
    std::strncpy(attributes.NAME, "worker", MAX_NAME_LENGTH);
    PROCESS_ID_TYPE pid = NULL_PROCESS_ID;
    CREATE_PROCESS(&attributes, &pid, &rc);
    expect(rc == NO_ERROR && pid == 7, "CREATE_PROCESS");

    START(pid, &rc);
    expect(rc == NO_ERROR, "START");

    PERIODIC_WAIT(&rc);
    expect(rc == INVALID_MODE, "PERIODIC_WAIT");

    PROCESS_ID_TYPE me = NULL_PROCESS_ID;
    GET_MY_ID(&me, &rc);
    expect(rc == NO_ERROR && me == 7, "GET_MY_ID");

    APEX_BYTE message[] = {'h', 'e', 'l', 'l', 'o'};
    REPORT_APPLICATION_MESSAGE(message, sizeof message, &rc);
    expect(rc == NO_ERROR, "REPORT_APPLICATION_MESSAGE");

    return failures == 0 ? 0 : 1;
}
"#;

#[test]
fn header_compiles_standalone() {
    let scratch = Scratch::new("standalone");
    let include = include_dir();

    // The header on its own, as the first and only thing in a translation
    // unit, in strict C99 and C++11.
    let only_c = scratch.write("only.c", "#include \"ARINC653.h\"\n");
    run(
        "compiling ARINC653.h alone as strict C99",
        cc().args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
            .args(["-fsyntax-only", "-I"])
            .arg(&include)
            .arg(&only_c),
    );
    let only_cpp = scratch.write("only.cpp", "#include \"ARINC653.h\"\n");
    run(
        "compiling ARINC653.h alone as C++11",
        cxx()
            .args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic"])
            .args(["-fsyntax-only", "-I"])
            .arg(&include)
            .arg(&only_cpp),
    );

    // C definitions against the prototypes, called from C++.
    let services_c = scratch.write("services.c", SERVICES_C);
    let services_o = scratch.path("services.o");
    run(
        "compiling C service stubs (C99)",
        cc().args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
            .args(["-Wmissing-prototypes", "-c", "-I"])
            .arg(&include)
            .arg(&services_c)
            .arg("-o")
            .arg(&services_o),
    );
    let caller_cpp = scratch.write("caller.cpp", CALLER_CPP);
    let caller_o = scratch.path("caller.o");
    run(
        "compiling the C++11 caller",
        cxx()
            .args([
                "-std=c++11",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-c",
            ])
            .arg("-I")
            .arg(&include)
            .arg(&caller_cpp)
            .arg("-o")
            .arg(&caller_o),
    );
    let linked = scratch.path("linked");
    run(
        "linking the C++ caller with the C services (extern \"C\")",
        cxx().arg(&caller_o).arg(&services_o).arg("-o").arg(&linked),
    );
    run(
        "running the C++ caller of the C services",
        &mut Command::new(&linked),
    );
}

// ---------------------------------------------------------------------------
// Test 4: the header's constants are partita_abi's, and its prototypes are the exports'
// ---------------------------------------------------------------------------

#[path = "layout/abi.rs"]
mod abi_check;

#[test]
fn abi_constants_match_header() {
    let header = std::fs::read_to_string(header_path()).expect("readable header");

    // Same enumerations with the same constants in the same order, same #defines.
    let (c_enums, abi_enums, c_defines, abi_defines) = abi_check::constant_inventories(&header);
    let mut problems = Vec::new();
    for (name, values) in &c_enums {
        match abi_enums.get(name) {
            None => problems.push(format!("enum {name} of the header is not in partita_abi")),
            Some(v) if v != values => problems.push(format!(
                "enum {name}: header has {values:?}, partita_abi has {v:?}"
            )),
            Some(_) => {}
        }
    }
    for name in abi_enums.keys().filter(|n| !c_enums.contains_key(*n)) {
        problems.push(format!("enum {name} of partita_abi is not in the header"));
    }
    for d in c_defines.difference(&abi_defines) {
        problems.push(format!("#define {d} of the header is not in partita_abi"));
    }
    for d in abi_defines.difference(&c_defines) {
        problems.push(format!("{d} of partita_abi is not a #define of the header"));
    }
    assert!(
        problems.is_empty(),
        "ARINC653.h and partita_abi declare different constants:\n  {}",
        problems.join("\n  ")
    );

    // Same values: the compiler checks each one.
    let scratch = Scratch::new("abi-constants");
    let source = scratch.write("constants.c", &abi_check::static_asserts());
    run(
        "compiling partita_abi's values against ARINC653.h",
        cc().args(["-std=c11", "-Wall", "-Werror", "-fsyntax-only", "-I"])
            .arg(include_dir())
            .arg(&source),
    );
}

#[test]
fn prototypes_match_rust_exports() {
    let header = std::fs::read_to_string(header_path()).expect("readable header");
    let ffi = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi");
    let exports = abi_check::rust_exports(&ffi);
    assert!(
        exports.len() > 50,
        "only {} exports found under {}",
        exports.len(),
        ffi.display()
    );

    let declared = abi_check::header_prototypes(&header);
    let exported: BTreeSet<String> = exports.iter().map(|e| e.name.clone()).collect();
    let mut problems = Vec::new();
    for n in declared.difference(&exported) {
        problems.push(format!("{n} is declared in the header but not exported"));
    }
    for e in exports.iter().filter(|e| !declared.contains(&e.name)) {
        problems.push(format!(
            "{} is exported by {} but not declared in the header",
            e.name,
            e.file.display()
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // Each export's Rust signature, spelt in C, must be the header's prototype exactly.
    let scratch = Scratch::new("prototypes");
    let source = scratch.write("prototypes.c", &abi_check::prototype_checks(&exports));
    run(
        "compiling the exports' signatures against ARINC653.h's prototypes",
        cc().args([
            "-std=c11",
            "-Wall",
            "-Werror",
            "-Werror=incompatible-pointer-types",
            "-Werror=discarded-qualifiers",
            "-fsyntax-only",
            "-I",
        ])
        .arg(include_dir())
        .arg(&source),
    );
}

#[test]
fn apex_services_number_every_export() {
    use partita_abi::trace::ApexService;
    let ffi = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi");
    let exports = abi_check::rust_exports(&ffi);
    assert!(exports.len() > 50, "only {} exports found", exports.len());
    let mut problems = Vec::new();
    for e in &exports {
        let services: Vec<&ApexService> = ApexService::ALL
            .iter()
            .filter(|s| s.c_name() == e.name)
            .collect();
        let [service] = services.as_slice() else {
            problems.push(format!(
                "{} has {} ApexService values (one expected)",
                e.name,
                services.len()
            ));
            continue;
        };
        // The export's body, from its signature to the closing brace at column 0.
        let text = std::fs::read_to_string(&e.file).expect("readable source");
        let start = text
            .find(&format!("extern \"C\" fn {}(", e.name))
            .expect("the export's signature");
        let end = text[start..].find("\n}").map_or(text.len(), |i| start + i);
        let call = format!("crate::trace::apex_call(ApexService::{service:?},");
        if !text[start..end].contains(&call) {
            problems.push(format!(
                "{} ({}) does not run its body in `{call} ...)`",
                e.name,
                e.file.display()
            ));
        }
    }
    for s in ApexService::ALL {
        if !exports.iter().any(|e| e.name == s.c_name()) {
            problems.push(format!("ApexService::{s:?} names no export"));
        }
    }
    let raws: BTreeSet<u32> = ApexService::ALL.iter().map(|s| s.raw()).collect();
    if raws.len() != ApexService::ALL.len() {
        problems.push("two ApexService values share a number".to_string());
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
