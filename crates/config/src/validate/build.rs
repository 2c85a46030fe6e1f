// SPDX-License-Identifier: MIT OR Apache-2.0
//! Construction of the typed model (only called when no error was reported).

use crate::limits::DEFAULT_MEMORY_BYTES;
use crate::model::{
    Backend, Channel, Endpoint, ErrorAction, ErrorIdLevel, HmStateEntry, HmTables,
    MemoryRequirement, ModuleSchedule, Partition, PartitionHmTable, Port, ProcessSpec,
    PseudoTransport, ScheduleChangeAction, ScheduledPartition, SystemStateEntry, ValidatedModule,
};
use crate::raw::{val, RawChannel, RawEndpoint, RawHmEntry};
use partita_schedule::{FramePlan, Window};

use super::{parse_udp, resolve_path, ScheduleFacts, Validator};

impl Validator<'_, '_, '_> {
    pub(super) fn build(
        &self,
        memory: Vec<Vec<MemoryRequirement>>,
        facts: ScheduleFacts,
    ) -> Option<ValidatedModule> {
        let raw = self.raw;
        let mut partitions = Vec::new();
        for (i, p) in raw.partitions.iter().enumerate() {
            let exe = self.executable_path(i)?;
            let res = p.resources.as_ref();
            let mem = memory.get(i).cloned().unwrap_or_default();
            // Sizes are at most 1 TiB and a file has at most 200 000 nodes: the sum fits.
            let configured = res
                .and_then(|r| val(&r.memory_bytes))
                .or_else(|| (!mem.is_empty()).then(|| mem.iter().map(|m| m.size).sum::<u64>()));
            let memory_limit = Some(configured.unwrap_or(DEFAULT_MEMORY_BYTES));
            let general_purpose = self.build_general_purpose(i);
            let cores = match res.and_then(|r| val(&r.cores)) {
                Some(c) => c,
                None => {
                    let mut c = facts.window_cores.get(i)?.clone();
                    c.extend(general_purpose.iter().flat_map(|g| g.background.clone()));
                    c.into_iter().collect()
                }
            };
            let processes = p
                .processes
                .iter()
                .map(|pr| {
                    Some(ProcessSpec {
                        name: val(&pr.name)?,
                        period: val(&pr.period),
                        wcet: val(&pr.wcet),
                        deadline: val(&pr.deadline),
                        priority: val(&pr.priority),
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            partitions.push(Partition {
                id: val(&p.id)?,
                name: val(&p.name)?,
                criticality: val(&p.criticality)?,
                system: val(&p.system).unwrap_or(false),
                entry_point: val(&p.entry_point),
                executable: resolve_path(self.ctx.base_dir, &exe.value),
                entry_function: self.entry_function(i).map_or_else(
                    || crate::model::DEFAULT_ENTRY_FUNCTION.to_string(),
                    |f| f.value,
                ),
                args: p
                    .executable
                    .as_ref()
                    .map(|e| e.args.iter().map(|a| a.value.clone()).collect())
                    .unwrap_or_default(),
                cores,
                memory_limit,
                max_processes: res.and_then(|r| val(&r.max_processes)),
                stack_size: res.and_then(|r| val(&r.stack_bytes)),
                memory: mem,
                ports: self.ports.get(i)?.iter().map(|(_, p)| p.clone()).collect(),
                processes,
                process_policy: val(&p.process_policy),
                general_purpose,
            });
        }
        let mut schedules = Vec::new();
        let built = if self.ctx.schedules {
            &raw.schedules[..]
        } else {
            &[]
        };
        for (si, s) in built.iter().enumerate() {
            let mut windows = Vec::new();
            let mut entries = Vec::new();
            for ps in &s.partitions {
                let idx = *self.by_id.get(&val(&ps.target.id)?)?;
                for w in &ps.windows {
                    windows.push(Window {
                        id: val(&w.id)?,
                        partition: idx,
                        core: val(&w.core).unwrap_or(0),
                        offset: val(&w.start)?,
                        duration: val(&w.duration)?,
                        period_start: val(&w.period_start).unwrap_or(false),
                    });
                }
                entries.push((
                    idx,
                    val(&ps.period)?,
                    val(&ps.duration)?,
                    val(&ps.change_action).unwrap_or(ScheduleChangeAction::Ignore),
                    val(&ps.set_schedule).unwrap_or(true),
                ));
            }
            let plan = FramePlan {
                major_frame: val(&s.major_frame)?,
                windows,
            };
            let partitions = entries
                .into_iter()
                .map(
                    |(partition, period, duration, change_action, set_module_schedule)| {
                        ScheduledPartition {
                            partition,
                            period,
                            duration,
                            period_origin: plan.period_origin(partition),
                            change_action,
                            set_module_schedule,
                        }
                    },
                )
                .collect();
            schedules.push(ModuleSchedule {
                id: val(&s.id).unwrap_or(si as u32),
                name: val(&s.name),
                initial: si == facts.initial,
                plan,
                partitions,
            });
        }
        let mut channels = Vec::new();
        for ch in &raw.channels {
            channels.push(self.build_channel(ch, &partitions)?);
        }
        let hm = self.build_hm()?;
        Some(ValidatedModule {
            name: val(&raw.name)?,
            version: val(&raw.version),
            module_id: val(&raw.module_id),
            partitions,
            schedules,
            initial_schedule: facts.initial,
            channels,
            hm,
            backend: val(&raw.backend).unwrap_or(Backend::Auto),
            source_path: self.ctx.source_path.clone(),
            source_sha256: self.ctx.source_sha256.clone(),
        })
    }

    fn build_endpoint(&self, e: &RawEndpoint) -> Option<Endpoint> {
        match e {
            RawEndpoint::Standard { target, port } => Some(Endpoint::Partition {
                partition: *self.by_id.get(&val(&target.id)?)?,
                port: val(port)?,
            }),
            RawEndpoint::Pseudo(p) => {
                let transport = if let Some(u) = &p.udp {
                    let (host, port) = parse_udp(&u.value).ok()?;
                    PseudoTransport::Udp { host, port }
                } else if let Some(f) = &p.file {
                    PseudoTransport::File {
                        path: resolve_path(self.ctx.base_dir, &f.value),
                    }
                } else {
                    PseudoTransport::Fifo {
                        path: resolve_path(self.ctx.base_dir, &p.fifo.as_ref()?.value),
                    }
                };
                Some(Endpoint::Pseudo {
                    name: val(&p.name)?,
                    port: val(&p.port),
                    transport,
                })
            }
        }
    }

    fn build_channel(&self, ch: &RawChannel, partitions: &[Partition]) -> Option<Channel> {
        let source = self.build_endpoint(ch.sources.first()?.endpoints.first()?)?;
        let destinations = ch
            .destinations
            .iter()
            .map(|d| self.build_endpoint(d.endpoints.first()?))
            .collect::<Option<Vec<_>>>()?;
        let port_of = |e: &Endpoint| -> Option<&Port> {
            match e {
                Endpoint::Partition { partition, port } => partitions
                    .get(*partition)?
                    .ports
                    .iter()
                    .find(|p| &p.name == port),
                Endpoint::Pseudo { .. } => None,
            }
        };
        let src_port = port_of(&source);
        let dst_port = destinations.iter().find_map(port_of);
        let reference = src_port.or(dst_port)?;
        Some(Channel {
            id: val(&ch.id)?,
            name: val(&ch.name),
            kind: reference.kind,
            max_message_size: reference.max_message_size,
            max_nb_messages: dst_port
                .and_then(|p| p.max_nb_messages)
                .or(src_port.and_then(|p| p.max_nb_messages)),
            source,
            destinations,
        })
    }

    fn build_hm(&self) -> Option<HmTables> {
        let raw = self.raw;
        let system = raw
            .system_hm
            .iter()
            .map(|e| {
                Some(SystemStateEntry {
                    state: val(&e.state)?,
                    description: val(&e.description),
                    errors: e
                        .levels
                        .iter()
                        .map(|l| {
                            Some(ErrorIdLevel {
                                error: val(&l.id)?,
                                description: val(&l.description),
                                level: val(&l.level)?,
                                code: val(&l.code),
                            })
                        })
                        .collect::<Option<Vec<_>>>()?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        fn entries<A: Copy>(es: &[RawHmEntry<A>]) -> Option<Vec<HmStateEntry<A>>> {
            es.iter()
                .map(|e| {
                    Some(HmStateEntry {
                        state: val(&e.state)?,
                        description: val(&e.description),
                        actions: e
                            .actions
                            .iter()
                            .map(|a| {
                                Some(ErrorAction {
                                    error: val(&a.id)?,
                                    action: a.action.as_ref()?.value,
                                    code: val(&a.code),
                                })
                            })
                            .collect::<Option<Vec<_>>>()?,
                    })
                })
                .collect()
        }
        let module = entries(&raw.module_hm)?;
        let partitions = raw
            .partition_hm
            .iter()
            .map(|t| {
                Some(PartitionHmTable {
                    partition: *self.by_id.get(&val(&t.target.id)?)?,
                    entries: entries(&t.entries)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(HmTables {
            system,
            module,
            partitions,
        })
    }
}
