# `scontrol show job` fields, one per line (KEY=VALUE) -> "granted NumCPUs=.. MinMemoryNode=<MB>M TimeLimit=..".
/^NumCPUs=/ { cpus = $2 }
/^TimeLimit=/ { limit = $2 }
/^MinMemoryNode=/ {
  unit = substr($2, length($2)); mem = substr($2, 1, length($2) - 1)
  if (unit == "G") mem *= 1024; else if (unit == "T") mem *= 1048576; else if (unit != "M") mem = $2
}
END { printf "granted NumCPUs=%s MinMemoryNode=%dM TimeLimit=%s\n", cpus, mem, limit }
