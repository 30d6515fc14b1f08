/* Replaced by the C baseline. */
#pragma once
