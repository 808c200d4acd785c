// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * budget.c --- the target's inputs of an image's automatic pack budget (image.h)
 */
#include <string.h>

#include "c.h"
#include "image.h"

static const char *const input_names[] = {
	[BP_IMAGE_IN_DEFAULT] = "default",
	[BP_IMAGE_IN_OPTION] = "option",
	[BP_IMAGE_IN_GUEST] = "guest",
	[BP_IMAGE_IN_MODEL] = "model",
};

const char *bp_image_input_name(enum bp_image_input in)
{
	return (unsigned int)in < ARRAY_SIZE(input_names) ? input_names[in] : "unknown";
}

void bp_image_budget_inputs(const struct bp_image_budget *b, uint64_t guest_mem,
			    struct bp_budget_in *in, enum bp_image_input *mem_from,
			    enum bp_image_input *rate_from)
{
	memset(in, 0, sizeof(*in));
	if (b->target_mem) {
		in->mem_total = b->target_mem;
		*mem_from = BP_IMAGE_IN_OPTION;
	} else if (guest_mem) {
		in->mem_total = guest_mem;
		*mem_from = BP_IMAGE_IN_GUEST;
	} else {
		in->mem_total = BP_IMAGE_TARGET_MEM_DEFAULT;
		*mem_from = BP_IMAGE_IN_DEFAULT;
	}
	in->rate_bps = b->target_rate;
	*rate_from = !b->target_rate ? BP_IMAGE_IN_DEFAULT :
		     b->model ? BP_IMAGE_IN_MODEL : BP_IMAGE_IN_OPTION;
	/* boot_ns 0: the pack builder takes the trace's last first access */
}
