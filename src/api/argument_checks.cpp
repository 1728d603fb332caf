#include "api/argument_checks.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"

namespace poolgrad {

std::string shapeText(const std::vector<int64_t> &values) {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
}

const char *dataTypeName(aclDataType type) {
    switch (type) {
        case ACL_FLOAT:
            return "FLOAT";
        case ACL_FLOAT16:
            return "FLOAT16";
        case ACL_BF16:
            return "BF16";
        case ACL_INT8:
            return "INT8";
        case ACL_INT16:
            return "INT16";
        case ACL_INT32:
            return "INT32";
        case ACL_INT64:
            return "INT64";
        case ACL_UINT8:
            return "UINT8";
        case ACL_UINT16:
            return "UINT16";
        case ACL_UINT32:
            return "UINT32";
        case ACL_UINT64:
            return "UINT64";
        case ACL_DOUBLE:
            return "DOUBLE";
        case ACL_BOOL:
            return "BOOL";
        case ACL_STRING:
            return "STRING";
        case ACL_COMPLEX64:
            return "COMPLEX64";
        case ACL_COMPLEX128:
            return "COMPLEX128";
        case ACL_COMPLEX32:
            return "COMPLEX32";
        default:
            return "an unsupported type";
    }
}

const char *formatName(aclFormat format) {
    switch (format) {
        case ACL_FORMAT_UNDEFINED:
            return "UNDEFINED";
        case ACL_FORMAT_NCHW:
            return "NCHW";
        case ACL_FORMAT_NHWC:
            return "NHWC";
        case ACL_FORMAT_ND:
            return "ND";
        case ACL_FORMAT_NC1HWC0:
            return "NC1HWC0";
        case ACL_FORMAT_FRACTAL_Z:
            return "FRACTAL_Z";
        case ACL_FORMAT_NC1HWC0_C04:
            return "NC1HWC0_C04";
        case ACL_FORMAT_HWCN:
            return "HWCN";
        case ACL_FORMAT_NDHWC:
            return "NDHWC";
        case ACL_FORMAT_FRACTAL_NZ:
            return "FRACTAL_NZ";
        case ACL_FORMAT_NCDHW:
            return "NCDHW";
        case ACL_FORMAT_NDC1HWC0:
            return "NDC1HWC0";
        case ACL_FRACTAL_Z_3D:
            return "FRACTAL_Z_3D";
        case ACL_FORMAT_NC:
            return "NC";
        case ACL_FORMAT_NCL:
            return "NCL";
        case ACL_FORMAT_FRACTAL_NZ_C0_16:
            return "FRACTAL_NZ_C0_16";
        case ACL_FORMAT_FRACTAL_NZ_C0_32:
            return "FRACTAL_NZ_C0_32";
        case ACL_FORMAT_FRACTAL_NZ_C0_2:
            return "FRACTAL_NZ_C0_2";
        case ACL_FORMAT_FRACTAL_NZ_C0_4:
            return "FRACTAL_NZ_C0_4";
        case ACL_FORMAT_FRACTAL_NZ_C0_8:
            return "FRACTAL_NZ_C0_8";
    }
    return "an unknown format";
}

int64_t elementCount(const aclTensor *tensor) {
    return checkedProduct<int64_t>(tensor->viewShape).value_or(std::numeric_limits<int64_t>::max());
}

bool isEmpty(const aclTensor *tensor) { return elementCount(tensor) == 0; }

aclnnStatus requireDataTypeIn(const char *op, NamedTensor tensor, std::initializer_list<aclDataType> allowed) {
    if (std::find(allowed.begin(), allowed.end(), tensor.tensor->dataType) != allowed.end()) return ACLNN_SUCCESS;
    std::string names;
    for (aclDataType type : allowed) names += (names.empty() ? "" : ", ") + std::string(dataTypeName(type));
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name, " dtype must be one of {", names, "}, got ",
                dataTypeName(tensor.tensor->dataType), " (", static_cast<int>(tensor.tensor->dataType), ")");
}

aclnnStatus requireSameDataType(const char *op, NamedTensor tensor, NamedTensor reference) {
    if (tensor.tensor->dataType == reference.tensor->dataType) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name, " dtype must equal ", reference.name, " dtype ",
                dataTypeName(reference.tensor->dataType), ", got ", dataTypeName(tensor.tensor->dataType));
}

aclnnStatus requirePublicFormat(const char *op, NamedTensor tensor) {
    switch (tensor.tensor->format) {
        case ACL_FORMAT_ND:
        case ACL_FORMAT_NCHW:
        case ACL_FORMAT_NHWC:
        case ACL_FORMAT_HWCN:
        case ACL_FORMAT_NDHWC:
        case ACL_FORMAT_NCDHW:
        case ACL_FORMAT_NC:
        case ACL_FORMAT_NCL:
            return ACLNN_SUCCESS;
        default:
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name,
                        " format must be a public format (ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, NC, NCL), got ",
                        formatName(tensor.tensor->format), " (", static_cast<int>(tensor.tensor->format), ")");
    }
}

aclnnStatus requireFormatIn(const char *op, NamedTensor tensor, std::initializer_list<aclFormat> allowed) {
    if (std::find(allowed.begin(), allowed.end(), tensor.tensor->format) != allowed.end()) return ACLNN_SUCCESS;
    std::string names;
    for (aclFormat format : allowed) names += (names.empty() ? "" : ", ") + std::string(formatName(format));
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name, " format must be one of {", names, "}, got ",
                formatName(tensor.tensor->format));
}

aclnnStatus requireSameFormat(const char *op, NamedTensor tensor, NamedTensor reference) {
    if (tensor.tensor->format == reference.tensor->format) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name, " format must equal ", reference.name, " format ",
                formatName(reference.tensor->format), ", got ", formatName(tensor.tensor->format));
}

aclnnStatus requireRankIn(const char *op, NamedTensor tensor, std::initializer_list<size_t> allowed) {
    const size_t rank = tensor.tensor->viewShape.size();
    if (std::find(allowed.begin(), allowed.end(), rank) != allowed.end()) return ACLNN_SUCCESS;
    std::string ranks;
    for (size_t value : allowed) ranks += (ranks.empty() ? "" : " or ") + std::to_string(value);
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name, " must have rank ", ranks, ", got rank ", rank,
                " (shape ", shapeText(tensor.tensor->viewShape), ")");
}

aclnnStatus requireSameRank(const char *op, NamedTensor tensor, NamedTensor reference) {
    if (tensor.tensor->viewShape.size() == reference.tensor->viewShape.size()) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name, " rank must equal ", reference.name, " rank ",
                reference.tensor->viewShape.size(), ", got ", tensor.tensor->viewShape.size(), " (", tensor.name, " ",
                shapeText(tensor.tensor->viewShape), ", ", reference.name, " ", shapeText(reference.tensor->viewShape),
                ")");
}

aclnnStatus requireSameShape(const char *op, NamedTensor tensor, NamedTensor reference) {
    if (tensor.tensor->viewShape == reference.tensor->viewShape) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name, " shape must equal ", reference.name, " shape ",
                shapeText(reference.tensor->viewShape), ", got ", shapeText(tensor.tensor->viewShape));
}

aclnnStatus requireShape(const char *op, NamedTensor tensor, const std::vector<int64_t> &expected, const char *why) {
    if (tensor.tensor->viewShape == expected) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name, " shape must be ", shapeText(expected), " (", why,
                "), got ", shapeText(tensor.tensor->viewShape));
}

aclnnStatus requirePlaneElements(const char *op, NamedTensor tensor, int spatialDims, int64_t &planeElements,
                                 bool channelsLast) {
    const std::vector<int64_t> &shape = tensor.tensor->viewShape;
    const size_t trailing = static_cast<size_t>(spatialDims) + (channelsLast ? 1 : 0);
    const std::span<const int64_t> spatial(shape.data() + shape.size() - trailing, static_cast<size_t>(spatialDims));
    const std::optional<int64_t> product = checkedProduct(spatial);
    if (!product)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name, " shape ", shapeText(shape), " has a plane ",
                    spatialDims == 3 ? "D*H*W" : "H*W", " of more elements than int64 can count (more than ",
                    std::numeric_limits<int64_t>::max(), ")");
    planeElements = *product;
    return ACLNN_SUCCESS;
}

IndexStorage indexStorageOf(aclDataType indexType) {
    return indexType == ACL_INT32 ? IndexStorage::Int32 : IndexStorage::Int64;
}

aclnnStatus requireIndexRange(const char *op, const char *name, IndexStorage storage, int spatialDims,
                              int64_t planeElements) {
    if (storage == IndexStorage::Int64 || planeElements <= std::numeric_limits<int32_t>::max()) return ACLNN_SUCCESS;
    const char *plane = spatialDims == 3 ? "D*H*W" : "H*W";
    if (storage == IndexStorage::Int32InMask)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name,
                    " is a mask, which holds INT32 indices, but the input plane ", plane, " has ", planeElements,
                    " elements, more than 2147483647; a plane that large cannot be pooled with a mask (the INT64 "
                    "indices of the WithIndices operators can address it)");
    return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", name, " is INT32 but the input plane ", plane, " has ",
                planeElements, " elements, more than 2147483647; use INT64 indices");
}

std::vector<NamedDim> batchAndChannelDims(size_t rank, int spatialDims, size_t firstSpatial) {
    std::vector<NamedDim> dims;
    const bool batched = rank == static_cast<size_t>(spatialDims) + 2;
    for (size_t i = 0; i < rank; ++i)
        if (i < firstSpatial || i >= firstSpatial + static_cast<size_t>(spatialDims))
            dims.push_back({i, batched && i == 0 ? "N" : "C"});
    return dims;
}

aclnnStatus requireSameDims(const char *op, NamedTensor tensor, NamedTensor reference,
                            const std::vector<NamedDim> &dims) {
    const std::vector<int64_t> &shape = tensor.tensor->viewShape, &referenceShape = reference.tensor->viewShape;
    for (const NamedDim &dim : dims)
        if (shape[dim.position] != referenceShape[dim.position])
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", tensor.name, " ", dim.name, " (dim ", dim.position,
                        ") must equal ", reference.name, "'s, got ", tensor.name, " ", shapeText(shape), " and ",
                        reference.name, " ", shapeText(referenceShape));
    return ACLNN_SUCCESS;
}

aclnnStatus requireWindowArithmetic(const char *op, const PoolGeometry &geometry) {
    static constexpr const char *axisNames[3] = {"D", "H", "W"};
    for (int a = 0; a < 3; ++a) {
        const WindowAxis &axis = geometry.axes[a];
        if (axis.windowArithmeticFits()) continue;
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": the windows on axis ", axisNames[a], " (input ", axis.inputSize,
                    ", output ", axis.outputSize, ", kernel ", axis.kernel, ", stride ", axis.stride, ", padding ",
                    axis.padBegin, ", dilation ", axis.dilation, ") reach coordinates that overflow int64");
    }
    return ACLNN_SUCCESS;
}

}  // namespace poolgrad
