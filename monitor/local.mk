# monitor
